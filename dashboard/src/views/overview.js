// Overview of a project: requests, tokens, spend against the monthly budget, cache hit rate, spend
// per day, per model and per key, user and tag, for the day, the week or the month (UTC), from the
// usage statistics.
import { api, projectPath } from '../api.js'
import { Chart } from '../chart.js'
import { count, money, percent } from '../format.js'
import { Choice, html, Loaded, useLoad, useState } from '../ui.js'
import { SpendBreakdown } from './spend.js'

const PERIODS = [['day', 'Today'], ['week', 'This week'], ['month', 'This month']]

const daySeconds = (date) => Date.parse(`${date}T00:00:00Z`) / 1000
const dayLabel = (seconds) => new Date(seconds * 1000).toISOString().slice(0, 10)

function BudgetBar({ budget }) {
  const share = budget.limit > 0 ? Math.min(100, (budget.used / budget.limit) * 100) : 100
  return html`<div class="stat wide">
    <span class="label" id="budget-label">Spend this month</span>
    <span class="value">${money(budget.used)} <span class="muted">of ${money(budget.limit)}</span></span>
    <progress aria-labelledby="budget-label" max="100" value=${share}>${percent(share)}</progress>
    <span class="muted">${percent(share)} of the monthly budget used; ${money(budget.remaining)} left.</span>
  </div>`
}

export function Overview({ project }) {
  const [period, setPeriod] = useState('month')
  const usage = useLoad(() => api('GET', `${projectPath(project.id, '/usage')}?period=${period}`), [project.id, period])
  return html`<section>
    <h1>Overview <span class="muted">· ${project.name}</span></h1>
    <${Choice} label="Period" options=${PERIODS} value=${period} onChange=${setPeriod} />
    <${Loaded} state=${usage} what="usage">${(u) => html`
      <p class="muted">${u.period.start} to ${u.period.end} (UTC)</p>
      <div class="stats">
        <div class="stat"><span class="label">Requests</span><span class="value">${count(u.totals.requests)}</span></div>
        <div class="stat"><span class="label">Tokens</span><span class="value">${count(u.totals.tokens)}</span></div>
        <div class="stat"><span class="label">Spend in period</span><span class="value">${money(u.totals.cost)}</span></div>
        <div class="stat"><span class="label">Cache hit rate</span><span class="value">${percent(u.cache.hitRate)}</span>
          <span class="muted">${count(u.cache.hits)} hits, ${count(u.cache.misses)} misses</span></div>
        <${BudgetBar} budget=${u.budget} />
      </div>
      <${Chart} title="Spend per day" kind="bars" yLabel="Spend (USD)" format=${money} xLabel=${dayLabel}
        points=${u.daily.map((d) => ({ x: daySeconds(d.date), y: d.cost }))} />
      <table>
        <caption>Usage per model</caption>
        <thead><tr><th scope="col">Model</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Tokens</th><th scope="col" class="num">Cost</th></tr></thead>
        <tbody>
          ${Object.entries(u.models).map(([model, m]) => html`<tr><td>${model}</td><td class="num">${count(m.requests)}</td><td class="num">${count(m.tokens)}</td><td class="num">${money(m.cost)}</td></tr>`)}
          ${Object.keys(u.models).length === 0 && html`<tr><td colspan="4" class="muted">No requests in this period yet.</td></tr>`}
        </tbody>
      </table>`}
    <//>
    <${SpendBreakdown} project=${project} period=${period} />
  </section>`
}
