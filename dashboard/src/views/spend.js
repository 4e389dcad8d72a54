// Spend of a project's period by API key, end user or tag, from the usage statistics' breakdown.
import { api, projectPath } from '../api.js'
import { count, money } from '../format.js'
import { Choice, html, Loaded, useLoad, useState } from '../ui.js'
import { SPEND_DIMENSIONS } from '../vocabulary.js'
const HEADINGS = { key: 'Key', user: 'User', tag: 'Tag' }

function Who({ by, row }) {
  if (by !== 'key') return row[by]
  return row.name === undefined ? html`<code>${row.key}</code>` : html`${row.name} <code>${row.prefix}</code>`
}

export function SpendBreakdown({ project, period }) {
  const [by, setBy] = useState('key')
  const spend = useLoad(() => api('GET', `${projectPath(project.id, '/usage')}?period=${period}&by=${by}`), [project.id, period, by])
  return html`<section aria-labelledby="spend-title">
    <h2 id="spend-title">Spend by key, user and tag</h2>
    <${Choice} label="Spend by" options=${SPEND_DIMENSIONS} value=${by} onChange=${setBy} />
    <${Loaded} state=${spend} what="spend">${(u) => html`<table>
      <caption>Spend per ${HEADINGS[by].toLowerCase()}</caption>
      <thead><tr><th scope="col">${HEADINGS[by]}</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Tokens</th><th scope="col" class="num">Cost</th></tr></thead>
      <tbody>
        ${u.breakdown.map((row) => html`<tr><td><${Who} by=${by} row=${row} /></td><td class="num">${count(row.requests)}</td><td class="num">${count(row.tokens)}</td><td class="num">${money(row.costDollars)}</td></tr>`)}
        ${u.breakdown.length === 0 && html`<tr><td colspan="4" class="muted">${by === 'key' ? 'No requests in this period yet.' : `No requests with a ${HEADINGS[by].toLowerCase()} in this period.`}</td></tr>`}
      </tbody>
    </table>`}<//>
  </section>`
}
