// The organization's audit log: who changed what in it, newest first. Owners read it; the
// navigation offers it to them alone, as the API does.
import { api } from '../api.js'
import { when } from '../format.js'
import { html, Loaded, useLoad } from '../ui.js'

const LIMIT = 100

function targetOf(entry, projects) {
  const project = entry.target.type === 'project' ? projects.find((p) => p.id === entry.target.id) : undefined
  return project === undefined ? `${entry.target.type} ${entry.target.id}` : `project ${project.name}`
}

const detailsOf = (details) => (details === undefined ? '' : Object.entries(details).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join('; '))

export function AuditLog({ organization, projects }) {
  const log = useLoad(() => api('GET', `/api/orgs/me/audit-log?limit=${LIMIT}`).then((a) => a.entries), [organization.id])
  return html`<section>
    <h1>Audit log <span class="muted">· ${organization.name}</span></h1>
    <${Loaded} state=${log} what="the audit log">${(entries) => html`<table>
      <caption>The last ${LIMIT} changes to the organization, newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Details</th></tr></thead>
      <tbody>
        ${entries.map((e) => html`<tr><td>${when(e.at)}</td><td>${e.actor.email}</td><td><code>${e.action}</code></td>
          <td>${targetOf(e, projects)}</td><td class="details">${detailsOf(e.details)}</td></tr>`)}
        ${entries.length === 0 && html`<tr><td colspan="5" class="muted">Nothing yet.</td></tr>`}
      </tbody>
    </table>`}<//>
  </section>`
}
