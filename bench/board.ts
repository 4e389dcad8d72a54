// The figures an independent multi-gateway board publishes, so the gateway's can stand beside
// other gateways': each for the gateway and, for scale, for the lean forwarder measured in the
// same run. Plus the governed lane, which no board publishes yet.
import type { SummaryRow } from './compare.ts'
import { ROW } from './lanes.ts'

export interface BoardLine {
  readonly figure: string
  readonly gateway: string
  readonly forwarder: string
  /** How the figure is taken. */
  readonly how: string
}

const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : `${n.toFixed(3)} ms`)
const rps = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : `${n.toFixed(0)}/s`)

/** The highest step whose row finished every stream without a stall, of the steps that ran. */
function highestHeldStep(rows: readonly SummaryRow[], nameOf: (open: number) => string): string {
  const steps = rows
    .map((row) => ({ row, open: Number(/^(\d+) streams: /.exec(row.name)?.[1]) }))
    .filter(({ row, open }) => Number.isFinite(open) && row.name === nameOf(open))
    .sort((a, b) => a.open - b.open)
  if (steps.length === 0) return '-'
  let held: number | undefined
  for (const { row, open } of steps) {
    if (!row.isAsNamed || row.figures.failed > 0 || (row.figures.stalls ?? 0) > 0) break
    held = open
  }
  const tried = steps.map((s) => s.open).join(' -> ')
  return held === undefined ? `none (tried ${tried})` : `${held} (tried ${tried})`
}

export function boardOf(rows: readonly SummaryRow[], sustainedConnections: number, sustainedLatencyMs: number): BoardLine[] {
  const row = (name: string) => rows.find((r) => r.name === name)
  const lines: BoardLine[] = []
  if (row(ROW.oneMiss) !== undefined) {
    lines.push({
      figure: 'added p99 at 1 connection',
      gateway: ms(row(ROW.oneMiss)?.derived.addedP99Ms),
      forwarder: ms(row(ROW.oneForwarder)?.derived.addedP99Ms),
      how: "p99 minus the direct mock's p99, requests interleaved, same run",
    })
  }
  if (row(ROW.sustainedMiss) !== undefined) {
    lines.push({
      figure: `sustained req/s, ${sustainedLatencyMs} ms mock`,
      gateway: rps(row(ROW.sustainedMiss)?.figures.rps),
      forwarder: rps(row(ROW.sustainedForwarder)?.figures.rps),
      how: `${sustainedConnections} connections, ceiling ${(sustainedConnections * 1000) / sustainedLatencyMs}/s`,
    })
  }
  if (row(ROW.missNoCache) !== undefined) {
    lines.push({
      figure: 'max req/s, 0 ms mock',
      gateway: rps(row(ROW.missNoCache)?.figures.rps),
      forwarder: rps(row(ROW.jsonForwarder)?.figures.rps),
      how: `the ${ROW.missNoCache} row`,
    })
  }
  if (row(ROW.ttfbChat) !== undefined) {
    lines.push({
      figure: 'added TTFB p99, streams',
      gateway: ms(row(ROW.ttfbChat)?.derived.addedTtfbP99Ms),
      forwarder: ms(row(ROW.ttfbForwarder)?.derived.addedTtfbP99Ms),
      how: "first body byte p99 minus the direct mock's, 1 connection, interleaved",
    })
  }
  if (rows.some((r) => / streams: /.test(r.name))) {
    lines.push({
      figure: 'concurrent SSE streams sustained',
      gateway: highestHeldStep(rows, ROW.streamsChat),
      forwarder: highestHeldStep(rows, ROW.streamsForwarder),
      how: 'highest step with no failed and no stalled stream',
    })
  }
  const governed = row(ROW.governed)
  if (governed !== undefined) {
    lines.push({
      figure: 'governed req/s, 0 ms mock',
      gateway: `${rps(governed.figures.rps)} (${(governed.derived.ratio ?? Number.NaN).toFixed(2)}x)`,
      forwarder: rps(row(ROW.jsonForwarder)?.figures.rps),
      how: 'auth, rate limit, budget, Governor on a 1 KB message',
    })
  }
  return lines
}
