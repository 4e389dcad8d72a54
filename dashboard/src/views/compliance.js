// Compliance records of a project: the score and its course over the last days, violations,
// alerts and cases with their filters and actions, and an audit record with its chain check.
import { api, projectPath, query } from '../api.js'
import { Chart } from '../chart.js'
import { count, when } from '../format.js'
import { ALERT_TYPES, SEVERITIES, VIOLATION_TYPES } from '../vocabulary.js'
import { Choice, ConfirmButton, ErrorText, fieldsOf, html, Loaded, Status, useAction, useEffect, useLoad, useState } from '../ui.js'

const SECTIONS = [['violations', 'Violations'], ['alerts', 'Alerts'], ['cases', 'Cases'], ['audit', 'Audit record']]

/** An audit record's own address in the dashboard: the Compliance view opens it and checks its chain. */
export const auditLink = (auditId) => `#/compliance?audit=${encodeURIComponent(auditId)}`

const dayLabel = (seconds) => new Date(seconds * 1000).toISOString().slice(0, 10)

/** The score's days before the project existed are no data, not a perfect score. */
function scorePoints(points, createdAt) {
  const created = Date.parse(createdAt)
  return points.map((p) => ({ x: Date.parse(p.at) / 1000, y: Date.parse(p.at) < created ? null : p.score }))
}

function before(points, createdAt) {
  if (points.length === 0 || Date.parse(points[0].at) >= Date.parse(createdAt)) return undefined
  return `No data before ${dayLabel(Date.parse(createdAt) / 1000)}, when the project was created.`
}

function Score({ project }) {
  const score = useLoad(() => api('GET', projectPath(project.id, '/compliance/score')), [project.id])
  const history = useLoad(() => api('GET', `${projectPath(project.id, '/compliance/score/history')}?days=30`), [project.id])
  return html`<div class="stats">
    <${Loaded} state=${score} what="the score">${(s) => html`
      <div class="stat wide"><span class="label">Compliance score (last 30 days)</span><span class="value">${s.score} <span class="muted">/ 100</span></span>
        <span class="muted">${count(s.totalViolations)} violation${s.totalViolations === 1 ? '' : 's'} found; open: ${SEVERITIES.map((sev) => `${s.openViolations[sev]} ${sev.toLowerCase()}`).join(', ')}</span></div>`}<//>
    <${Loaded} state=${history} what="the score's history">${(h) => html`
      <${Chart} title="Compliance score, end of each day" kind="line" yLabel="Score" yRange=${[0, 100]} format=${(v) => String(Math.round(v))} xLabel=${dayLabel}
        points=${scorePoints(h.points, project.createdAt)} note=${before(h.points, project.createdAt)} />`}<//>
  </div>`
}

/** A filterable, paged list: `filters` are [name, label, values]; `row` renders one record. */
function RecordList({ project, path, what, filters, initial = {}, head, row, onChange }) {
  const [filter, setFilter] = useState(initial)
  const [pages, setPages] = useState([])
  const first = useLoad(() => api('GET', projectPath(project.id, path) + query({ ...filter, limit: 25 })), [project.id, path, JSON.stringify(filter)])
  const more = useAction()
  const records = [...(first.data?.data ?? []), ...pages.flatMap((p) => p.data)]
  const cursor = pages.length > 0 ? pages.at(-1).nextCursor : first.data?.nextCursor
  const loadMore = () => more.run(async () => {
    const page = await api('GET', projectPath(project.id, path) + query({ ...filter, limit: 25, cursor }))
    setPages([...pages, page])
  })
  const reload = () => {
    setPages([])
    first.reload()
    onChange?.()
  }
  const applyFilters = (event) => {
    setPages([])
    setFilter(fieldsOf(event))
  }
  return html`
    <form class="filters" onSubmit=${applyFilters} aria-label=${`Filter ${what}`}>
      ${filters.map(([name, label, values]) => html`<label>${label}
        <select name=${name}><option value="">Any</option>${values.map((v) => html`<option defaultSelected=${filter[name] === v}>${v}</option>`)}</select></label>`)}
      <button>Apply filters</button>
    </form>
    <${ErrorText} error=${first.error ?? more.error} />
    <table>
      <caption>${what}</caption>
      <thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
      <tbody>
        ${records.map((record) => row(record, reload))}
        ${first.data !== undefined && records.length === 0 && html`<tr><td colspan=${head.length} class="muted">None.</td></tr>`}
      </tbody>
    </table>
    ${cursor && html`<button type="button" onClick=${loadMore} disabled=${more.busy}>Show more</button>`}`
}

function Violations({ project, canWrite, onChange }) {
  const act = useAction()
  const resolve = (v, reload) => act.run(async () => {
    await api('POST', projectPath(project.id, `/compliance/violations/${encodeURIComponent(v.id)}/resolve`))
    reload()
  })
  return html`<${ErrorText} error=${act.error} />
    <${RecordList} project=${project} path="/compliance/violations" what="Violations" initial=${{ status: 'open' }} onChange=${onChange}
      filters=${[['status', 'Status', ['open', 'resolved']], ['type', 'Type', VIOLATION_TYPES], ['severity', 'Severity', SEVERITIES]]}
      head=${['Found', 'Type', 'Severity', 'Description', 'Audit record', 'Status', ...(canWrite ? ['Actions'] : [])]}
      row=${(v, reload) => html`<tr>
        <td>${when(v.createdAt)}</td><td>${v.type}</td><td>${v.severity}</td><td>${v.description}</td><td><a href=${auditLink(v.auditId)}><code>${v.auditId}</code></a></td><td><${Status} value=${v.status} /></td>
        ${canWrite && html`<td>${v.status === 'open' && html`<button type="button" onClick=${() => resolve(v, reload)}>Resolve</button>`}</td>`}</tr>`} />`
}

function Alerts({ project, canWrite }) {
  const act = useAction()
  const change = (alert, action, reload) => act.run(async () => {
    await api('POST', projectPath(project.id, `/compliance/alerts/${encodeURIComponent(alert.id)}/${action}`))
    reload()
  })
  return html`<${ErrorText} error=${act.error} />
    <${RecordList} project=${project} path="/compliance/alerts" what="Alerts"
      filters=${[['status', 'Status', ['open', 'acknowledged', 'resolved']], ['type', 'Type', ALERT_TYPES], ['severity', 'Severity', SEVERITIES]]}
      head=${['Raised', 'Severity', 'Title', 'Message', 'Status', ...(canWrite ? ['Actions'] : [])]}
      row=${(a, reload) => html`<tr>
        <td>${when(a.createdAt)}</td><td>${a.severity}</td><td>${a.title}</td><td>${a.message}</td><td><${Status} value=${a.status} /></td>
        ${canWrite && html`<td class="actions">
          ${a.status === 'open' && html`<button type="button" onClick=${() => change(a, 'acknowledge', reload)}>Acknowledge</button>`}
          ${a.status !== 'resolved' && html`<button type="button" onClick=${() => change(a, 'resolve', reload)}>Resolve</button>`}</td>`}</tr>`} />`
}

function Cases({ project, canWrite }) {
  const act = useAction()
  const resolve = (c, reload) => act.run(async () => {
    await api('POST', projectPath(project.id, `/compliance/cases/${encodeURIComponent(c.id)}/resolve`))
    reload()
  })
  return html`<${ErrorText} error=${act.error} />
    <${RecordList} project=${project} path="/compliance/cases" what="Cases"
      filters=${[['status', 'Status', ['open', 'investigating', 'resolved']], ['severity', 'Severity', SEVERITIES]]}
      head=${['Opened', 'Title', 'Severity', 'Violations', 'Status', ...(canWrite ? ['Actions'] : [])]}
      row=${(c, reload) => html`<tr>
        <td>${when(c.createdAt)}</td><td>${c.title}</td><td>${c.severity}</td><td>${c.violationIds.length}</td><td><${Status} value=${c.status} /></td>
        ${canWrite && html`<td>${c.status !== 'resolved' && html`<${ConfirmButton} label="Resolve" title=${`Resolve the case “${c.title}”?`} confirmLabel="Resolve case"
          question="Its open violations are resolved with it." onConfirm=${() => resolve(c, reload)} />`}</td>`}</tr>`} />`
}

function AuditRecord({ project, auditId: linked }) {
  const lookup = useAction()
  const [found, setFound] = useState(undefined)
  const show = (auditId) => {
    setFound(undefined)
    lookup.run(async () => {
      const path = projectPath(project.id, `/compliance/audit/${encodeURIComponent(auditId.trim())}`)
      const [record, check] = await Promise.all([api('GET', path), api('GET', `${path}/verify`)])
      setFound({ record, check })
    })
  }
  useEffect(() => {
    if (linked !== undefined) show(linked)
  }, [linked])
  const submit = (event) => show(fieldsOf(event).auditId)
  return html`<form class="filters" onSubmit=${submit}>
      <label>Audit id <input name="auditId" required placeholder="aud_…" defaultValue=${linked ?? ''} /></label>
      <button class="primary" disabled=${lookup.busy}>Look up</button>
    </form>
    <${ErrorText} error=${lookup.error} />
    ${found !== undefined && html`<section class="card" aria-label="Audit record">
      <p><${Status} value=${found.check.intact ? 'intact' : 'broken'} />
        ${found.check.intact ? ` The hash chain holds from the first record through this one (${found.check.records} records checked).`
          : ` The chain is broken at ${found.check.brokenAt}: ${found.check.reason}.`}</p>
      <dl class="facts">
        <dt>Audit id</dt><dd><code>${found.record.id}</code></dd>
        <dt>When</dt><dd>${when(found.record.at)}</dd>
        <dt>Kind</dt><dd>${found.record.kind}</dd>
        <dt>Decision</dt><dd>${found.record.decision}</dd>
        <dt>Risk</dt><dd>${found.record.level}, score ${found.record.score}</dd>
        <dt>Action type</dt><dd>${found.record.actionType}</dd>
        <dt>Sender</dt><dd>${found.record.sender.id}</dd>
        <dt>Findings</dt><dd>${Object.entries(found.record.findingCounts).map(([type, n]) => `${type} × ${n}`).join(', ') || 'none'}</dd>
        <dt>Violations</dt><dd>${found.record.violationIds.join(', ') || 'none'}</dd>
        <dt>Sequence</dt><dd>${found.record.seq}</dd>
        <dt>Hash</dt><dd><code class="wrap">${found.record.hash}</code></dd>
        <dt>Previous hash</dt><dd><code class="wrap">${found.record.prevHash}</code></dd>
      </dl>
    </section>`}`
}

export function Compliance({ project, canWrite, params }) {
  const linked = params.audit
  const [section, setSection] = useState(linked === undefined ? 'violations' : 'audit')
  useEffect(() => {
    if (linked !== undefined) setSection('audit')
  }, [linked])
  const [round, setRound] = useState(0)
  const views = { violations: Violations, alerts: Alerts, cases: Cases, audit: AuditRecord }
  const View = views[section]
  return html`<section>
    <h1>Compliance <span class="muted">· ${project.name}</span></h1>
    <${Score} key=${round} project=${project} />
    <${Choice} label="Records" options=${SECTIONS} value=${section} onChange=${setSection} />
    <${View} project=${project} canWrite=${canWrite} auditId=${linked} onChange=${() => setRound((r) => r + 1)} />
  </section>`
}
