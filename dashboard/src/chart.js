// Charts through uPlot, each with its numbers in a table below it for readers who cannot see it.
import uPlot from '../vendor/uplot.mjs'
import { html, useEffect, useRef } from './ui.js'

const HEIGHT = 220
const INK = '#1f3a5f'

/**
 * `points`: [{x: epoch seconds, y: number or null}] (null: no data, a gap in the line), `kind`:
 * 'bars' or 'line', `format` renders a y value, `xLabel` renders an x value in the table, `note`
 * says something about the data under the title.
 */
export function Chart({ title, points, kind, yLabel, format, xLabel, yRange, note }) {
  const box = useRef(null)
  useEffect(() => {
    const el = box.current
    const options = {
      width: Math.max(280, el.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      cursor: { show: true, drag: { x: false, y: false } },
      scales: { x: { time: true }, y: yRange === undefined ? { range: (_u, _min, max) => [0, max > 0 ? max * 1.15 : 1] } : { range: () => yRange } },
      axes: [{}, { label: yLabel, values: (_u, ticks) => ticks.map(format), size: 70 }],
      series: [
        {},
        kind === 'bars'
          ? { label: yLabel, stroke: INK, fill: 'rgba(31, 58, 95, 0.55)', paths: uPlot.paths.bars({ size: [0.6, 48] }), points: { show: false } }
          : { label: yLabel, stroke: INK, width: 2, points: { show: points.length < 40 } },
      ],
    }
    const plot = new uPlot(options, [points.map((p) => p.x), points.map((p) => p.y)], el)
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height: HEIGHT }))
    resize.observe(el)
    return () => {
      resize.disconnect()
      plot.destroy()
    }
  }, [points, kind])
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    ${note !== undefined && html`<p class="muted">${note}</p>`}
    <div ref=${box} class="plot" aria-hidden="true"></div>
    <details>
      <summary>${title}: the numbers</summary>
      <table>
        <thead><tr><th scope="col">Date</th><th scope="col">${yLabel}</th></tr></thead>
        <tbody>${points.map((p) => html`<tr><td>${xLabel(p.x)}</td><td>${p.y === null ? 'no data' : format(p.y)}</td></tr>`)}</tbody>
      </table>
    </details>
  </figure>`
}
