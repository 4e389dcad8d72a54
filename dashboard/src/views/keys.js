// Manage Keys: the project's API keys, Create New Key (the value is shown once, on the creation
// screen only, and forgotten when it closes), deactivate, reactivate and delete.
import { api } from '../api.js'
import { when } from '../format.js'
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

function CreateKey({ project, onCreated, onCancel }) {
  const create = useAction()
  const submit = (event) => {
    const { name, type, env } = fieldsOf(event)
    create.run(async () => onCreated(await api('POST', `/api/projects/${encodeURIComponent(project.id)}/keys`, { name, type, env: env === '' ? null : env })))
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
    <${ErrorText} error=${create.error} />
    <div class="actions"><button class="primary" disabled=${create.busy}>Create key</button><button type="button" onClick=${onCancel}>Cancel</button></div>
  </form>`
}

export function Keys({ project, canWrite }) {
  const keys = useLoad(() => api('GET', `/api/projects/${encodeURIComponent(project.id)}/keys`).then((a) => a.keys), [project.id])
  const [creating, setCreating] = useState(false)
  const [created, setCreated] = useState(undefined)
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
    <${ErrorText} error=${action.error} />
    <${Loaded} state=${keys} what="keys">${(list) => html`<table>
      <caption>API keys of ${project.name}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Type</th><th scope="col">Env</th>
        <th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th>${canWrite && html`<th scope="col">Actions</th>`}</tr></thead>
      <tbody>
        ${list.map((key) => html`<tr>
          <td>${key.name}</td><td><code>${key.prefix}</code></td><td>${key.type}_</td><td>${key.env ?? '—'}</td>
          <td>${when(key.createdAt)}</td><td>${when(key.lastUsedAt)}</td><td><${Status} value=${key.status} /></td>
          ${canWrite && html`<td class="actions">
            ${key.status === 'active'
              ? html`<${ConfirmButton} label="Deactivate" title=${`Deactivate “${key.name}”?`} confirmLabel="Deactivate"
                  question="Requests with this key will get 401 until you reactivate it." onConfirm=${() => change(() => api('POST', keyPath(key, '/deactivate')))} />`
              : html`<button type="button" onClick=${() => change(() => api('POST', keyPath(key, '/reactivate')))}>Reactivate</button>`}
            <${ConfirmButton} label="Delete" danger title=${`Delete “${key.name}”?`} confirmLabel="Delete permanently"
              question="The key stops working at once and cannot be restored." onConfirm=${() => change(() => api('DELETE', keyPath(key)))} />
          </td>`}
        </tr>`)}
        ${list.length === 0 && html`<tr><td colspan="8" class="muted">No keys yet.</td></tr>`}
      </tbody>
    </table>`}<//>
  </section>`
}
