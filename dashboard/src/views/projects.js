// Projects of the organization: create one, and change the chosen one's name, plan, monthly
// budget and cache settings.
import { api } from '../api.js'
import { money, when } from '../format.js'
import { PLANS } from '../vocabulary.js'
import { ErrorText, fieldsOf, html, useAction, useState } from '../ui.js'


function planOptions(selected) {
  return PLANS.map(([value, label]) => html`<option value=${value} defaultSelected=${value === selected}>${label}</option>`)
}

function CreateProject({ onCreated }) {
  const create = useAction()
  const submit = (event) => {
    const form = event.currentTarget
    const { name, plan, budgetDollars } = fieldsOf(event)
    create.run(async () => {
      const project = await api('POST', '/api/projects', { name, plan, budgetDollars: Number(budgetDollars) })
      form.reset()
      onCreated(project)
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="new-project-title">
    <h2 id="new-project-title">New project</h2>
    <label>Name <input name="name" required maxlength="200" /></label>
    <label>Plan <select name="plan">${planOptions('pro')}</select></label>
    <label>Monthly budget (USD) <input name="budgetDollars" type="number" min="0" step="0.01" defaultValue="10" required /></label>
    <${ErrorText} error=${create.error} />
    <button class="primary" disabled=${create.busy}>Create project</button>
  </form>`
}

function ProjectSettings({ project, canWrite, onSaved }) {
  const save = useAction()
  const [saved, setSaved] = useState(false)
  const submit = (event) => {
    const { name, plan, budgetDollars, cacheTtlSeconds } = fieldsOf(event)
    const cacheEnabled = event.currentTarget.elements.cacheEnabled.checked
    const cacheSampled = event.currentTarget.elements.cacheSampled.checked
    setSaved(false)
    save.run(async () => {
      await api('PATCH', `/api/projects/${encodeURIComponent(project.id)}`, {
        name, plan, budgetDollars: Number(budgetDollars), cacheEnabled, cacheSampled, cacheTtlSeconds: Number(cacheTtlSeconds),
      })
      setSaved(true)
      onSaved()
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="settings-title">
    <h2 id="settings-title">Settings of ${project.name}</h2>
    <p class="muted">Id <code>${project.id}</code>, created ${when(project.createdAt)}.</p>
    <fieldset disabled=${!canWrite}>
      <legend class="sr-only">Project settings</legend>
      <label>Name <input name="name" defaultValue=${project.name} required maxlength="200" /></label>
      <label>Plan <select name="plan">${planOptions(project.plan === 'startup' ? 'pro' : project.plan)}</select></label>
      <label>Monthly budget (USD) <input name="budgetDollars" type="number" min="0" step="0.01" defaultValue=${project.budgetDollars} required /></label>
      <label class="check"><input name="cacheEnabled" type="checkbox" defaultChecked=${project.cacheEnabled} /> Answer identical requests from the cache</label>
      <label class="check"><input name="cacheSampled" type="checkbox" defaultChecked=${project.cacheSampled === true} /> Also answer OpenAI and Anthropic requests sampled above temperature 0 (without a seed) from the cache</label>
      <label>Cache entries live (seconds) <input name="cacheTtlSeconds" type="number" min="0" max="2592000" step="1" defaultValue=${project.cacheTtlSeconds} required /></label>
      <${ErrorText} error=${save.error} />
      ${saved && html`<p class="success" role="status">Saved.</p>`}
      ${canWrite && html`<button class="primary" disabled=${save.busy}>Save settings</button>`}
    </fieldset>
  </form>`
}

export function Projects({ project, projects, canWrite, reloadProjects, selectProject }) {
  return html`<section>
    <h1>Projects</h1>
    <table>
      <caption>Projects of your organization</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Plan</th><th scope="col" class="num">Monthly budget</th><th scope="col">Cache</th><th scope="col">Governor</th></tr></thead>
      <tbody>${projects.map((p) => html`<tr aria-current=${p.id === project?.id ? 'true' : undefined}>
        <td><button type="button" class="link" onClick=${() => selectProject(p.id)}>${p.name}</button>${p.id === project?.id && html` <span class="badge">chosen</span>`}</td>
        <td>${p.plan}</td><td class="num">${money(p.budgetDollars)}</td><td>${p.cacheEnabled ? `on, ${p.cacheTtlSeconds} s` : 'off'}</td>
        <td>${p.governor.strictMode ? 'strict' : 'advisory'}</td></tr>`)}
        ${projects.length === 0 && html`<tr><td colspan="5" class="muted">No projects yet.</td></tr>`}
      </tbody>
    </table>
    ${project !== undefined && html`<${ProjectSettings} key=${project.id} project=${project} canWrite=${canWrite} onSaved=${reloadProjects} />`}
    ${canWrite && html`<${CreateProject} onCreated=${(created) => { reloadProjects(); selectProject(created.id) }} />`}
  </section>`
}
