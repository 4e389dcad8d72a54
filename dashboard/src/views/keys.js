// Manage Keys: the project's API keys, Create New Key (the value is shown once, on the creation
// screen only, and forgotten when it closes), a key's own budget and rpm, deactivate, reactivate
// and delete.
import { api } from '../api.js'
import { count, money, when } from '../format.js'
import { ConfirmButton, ErrorText, fieldsOf, html, Loaded, Status, useAction, useLoad, useRef, useState } from '../ui.js'

function NewKeyValue({ created, onDone }) {
  const field = useRef(null)
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    field.current.select()
    try {
      await navigator.clipboard.writeText(created.key)
      setCopied(true)
    } catch {
      setCopied(false)
    }
  }
  return html`<section class="card reveal" aria-labelledby="new-key-title">
    <h2 id="new-key-title">Your new key “${created.name}”</h2>
    <p class="warning" role="alert"><strong>Copy it now: you will not see this key again.</strong> Tollgate keeps only a hash of it.</p>
    <label>Key <input ref=${field} class="secret" readonly value=${created.key} onFocus=${(e) => e.currentTarget.select()} /></label>
    <div class="actions">
      <button type="button" class="primary" onClick=${copy}>Copy key</button>
      <span role="status">${copied ? 'Copied to the clipboard.' : ''}</span>
      <button type="button" onClick=${onDone}>I have stored it</button>
    </div>
  </section>`
}

/** A key's budget and rpm fields as the API takes them: an empty field is no limit of its own. */
function limitsOf({ budgetDollars, rpm }, empty) {
  return { budgetDollars: budgetDollars === '' ? empty : Number(budgetDollars), rpm: rpm === '' ? empty : Number(rpm) }
}

function LimitFields({ current = {} }) {
  return html`<label>Monthly budget of this key (USD) <span class="hint">(optional; within the project's)</span>
      <input name="budgetDollars" type="number" min="0" step="any" defaultValue=${current.budgetDollars ?? ''} /></label>
    <label>Requests per minute <span class="hint">(optional; within the plan's)</span>
      <input name="rpm" type="number" min="1" step="1" defaultValue=${current.rpm ?? ''} /></label>`
}

function EditLimits({ apiKey, onSaved, onCancel }) {
  const save = useAction()
  const submit = (event) => {
    const limits = limitsOf(fieldsOf(event), null)
    save.run(async () => onSaved(await api('PATCH', `/api/keys/${encodeURIComponent(apiKey.id)}`, limits)))
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="limits-title">
    <h2 id="limits-title">Limits of “${apiKey.name}”</h2>
    <${LimitFields} current=${apiKey} />
    <${ErrorText} error=${save.error} />
    <div class="actions"><button class="primary" disabled=${save.busy}>Save limits</button><button type="button" onClick=${onCancel}>Cancel</button></div>
  </form>`
}

function CreateKey({ project, onCreated, onCancel }) {
  const create = useAction()
  const submit = (event) => {
    const { name, type, env, ...limits } = fieldsOf(event)
    const { budgetDollars, rpm } = limitsOf(limits, undefined)
    create.run(async () => onCreated(await api('POST', `/api/projects/${encodeURIComponent(project.id)}/keys`, {
      name, type, env: env === '' ? null : env, ...(budgetDollars === undefined ? {} : { budgetDollars }), ...(rpm === undefined ? {} : { rpm }),
    })))
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="create-key-title">
    <h2 id="create-key-title">Create New Key</h2>
    <label>Name <span class="hint">(what uses it, e.g. “billing service”)</span><input name="name" required maxlength="200" /></label>
    <label>Type <select name="type">
      <option value="sk">Gateway key (sk_): AI endpoints</option>
      <option value="pk">Project key (pk_): compliance records</option>
    </select></label>
    <label>Environment <select name="env">
      <option value="">None</option><option value="dev">Development (test mode, local model)</option>
      <option value="stg">Staging</option><option value="prod">Production</option>
    </select></label>
    <${LimitFields} />
    <${ErrorText} error=${create.error} />
    <div class="actions"><button class="primary" disabled=${create.busy}>Create key</button><button type="button" onClick=${onCancel}>Cancel</button></div>
  </form>`
}

export function Keys({ project, canWrite }) {
  const keys = useLoad(() => api('GET', `/api/projects/${encodeURIComponent(project.id)}/keys`).then((a) => a.keys), [project.id])
  const [creating, setCreating] = useState(false)
  const [created, setCreated] = useState(undefined)
  const [editing, setEditing] = useState(undefined)
  const action = useAction()
  const change = (work) => action.run(async () => {
    await work()
    keys.reload()
  })
  const keyPath = (key, rest = '') => `/api/keys/${encodeURIComponent(key.id)}${rest}`

  return html`<section>
    <h1>Manage Keys <span class="muted">· ${project.name}</span></h1>
    ${created !== undefined && html`<${NewKeyValue} created=${created} onDone=${() => setCreated(undefined)} />`}
    ${canWrite && created === undefined && (creating
      ? html`<${CreateKey} project=${project} onCancel=${() => setCreating(false)} onCreated=${(key) => { setCreating(false); setCreated(key); keys.reload() }} />`
      : html`<p><button type="button" class="primary" onClick=${() => setCreating(true)}>Create New Key</button></p>`)}
    ${editing !== undefined && html`<${EditLimits} apiKey=${editing} onCancel=${() => setEditing(undefined)} onSaved=${() => { setEditing(undefined); keys.reload() }} />`}
    <${ErrorText} error=${action.error} />
    <${Loaded} state=${keys} what="keys">${(list) => html`<table>
      <caption>API keys of ${project.name}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Type</th><th scope="col">Env</th>
        <th scope="col" class="num">Budget</th><th scope="col" class="num">RPM</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th>${canWrite && html`<th scope="col">Actions</th>`}</tr></thead>
      <tbody>
        ${list.map((key) => html`<tr>
          <td>${key.name}</td><td><code>${key.prefix}</code></td><td>${key.type}_</td><td>${key.env ?? '—'}</td>
          <td class="num">${key.budgetDollars === undefined ? '—' : money(key.budgetDollars)}</td><td class="num">${key.rpm === undefined ? '—' : count(key.rpm)}</td>
          <td>${when(key.createdAt)}</td><td>${when(key.lastUsedAt)}</td><td><${Status} value=${key.status} /></td>
          ${canWrite && html`<td class="actions">
            <button type="button" onClick=${() => setEditing(key)}>Limits</button>
            ${key.status === 'active'
              ? html`<${ConfirmButton} label="Deactivate" title=${`Deactivate “${key.name}”?`} confirmLabel="Deactivate"
                  question="Requests with this key will get 401 until you reactivate it." onConfirm=${() => change(() => api('POST', keyPath(key, '/deactivate')))} />`
              : html`<button type="button" onClick=${() => change(() => api('POST', keyPath(key, '/reactivate')))}>Reactivate</button>`}
            <${ConfirmButton} label="Delete" danger title=${`Delete “${key.name}”?`} confirmLabel="Delete permanently"
              question="The key stops working at once and cannot be restored." onConfirm=${() => change(() => api('DELETE', keyPath(key)))} />
          </td>`}
        </tr>`)}
        ${list.length === 0 && html`<tr><td colspan="10" class="muted">No keys yet.</td></tr>`}
      </tbody>
    </table>`}<//>
  </section>`
}
