// Webhooks of a project: register one, send a test event, see its deliveries and redeliver one,
// turn it off and on, delete it.
import { api, projectPath } from '../api.js'
import { when } from '../format.js'
import { EVENT_KINDS } from '../vocabulary.js'
import { ConfirmButton, ErrorText, html, Loaded, Status, useAction, useLoad, useState } from '../ui.js'

// The form starts with the event most receivers are for, so a webhook is never registered for
// nothing by accident.
const FIRST_EVENT = 'violation.detected'

function randomSecret() {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

function Register({ project, onAdded }) {
  const add = useAction()
  const [secret, setSecret] = useState('')
  const submit = (event) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    const events = data.getAll('events')
    add.run(async () => {
      await api('POST', projectPath(project.id, '/webhooks'), { url: data.get('url'), events: events.includes('*') ? ['*'] : events, secret })
      form.reset()
      setSecret('')
      onAdded()
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="new-webhook">
    <h2 id="new-webhook">Register a webhook</h2>
    <label>URL <span class="hint">(https, a public address)</span><input name="url" type="url" required placeholder="https://hooks.example.com/tollgate" /></label>
    <fieldset>
      <legend>Events</legend>
      <label class="check"><input type="checkbox" name="events" value="*" /> All events</label>
      <div class="columns">${EVENT_KINDS.map((kind) => html`<label class="check">
        <input type="checkbox" name="events" value=${kind} defaultChecked=${kind === FIRST_EVENT} /> ${kind}</label>`)}</div>
    </fieldset>
    <label>Signing secret <span class="hint">(16 or more characters; store it with your receiver: it is not shown again)</span>
      <input name="secret" value=${secret} onInput=${(e) => setSecret(e.currentTarget.value)} required minlength="16" maxlength="512" autocomplete="off" /></label>
    <div class="actions">
      <button type="button" onClick=${() => setSecret(randomSecret())}>Generate a secret</button>
      <button class="primary" disabled=${add.busy}>Register webhook</button>
    </div>
    <${ErrorText} error=${add.error} />
  </form>`
}

function Deliveries({ project, hook, canWrite }) {
  const path = projectPath(project.id, `/webhooks/${encodeURIComponent(hook.id)}/deliveries`)
  const deliveries = useLoad(() => api('GET', `${path}?limit=20`).then((a) => a.deliveries), [hook.id])
  const redeliver = useAction()
  return html`<section class="card" aria-label=${`Deliveries to ${hook.url}`}>
    <h3>Recent deliveries to ${hook.url}</h3>
    <${ErrorText} error=${redeliver.error} />
    <button type="button" onClick=${deliveries.reload}>Refresh</button>
    <${Loaded} state=${deliveries} what="deliveries">${(list) => html`<table>
      <caption>The last 20 deliveries, newest first</caption>
      <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th>
        <th scope="col">Answer</th><th scope="col">Next attempt</th>${canWrite && html`<th scope="col">Actions</th>`}</tr></thead>
      <tbody>
        ${list.map((d) => html`<tr><td>${when(d.created)}</td><td>${d.event_type}${d.test ? ' (test)' : ''}</td><td><${Status} value=${d.status} /></td>
          <td class="num">${d.attempts}</td><td>${d.response_code ?? d.error ?? '—'}</td><td>${when(d.next_attempt)}</td>
          ${canWrite && html`<td>${d.status !== 'pending' && html`<button type="button" disabled=${redeliver.busy} onClick=${() => redeliver.run(async () => {
            await api('POST', `${path}/${encodeURIComponent(d.id)}/redeliver`)
            deliveries.reload()
          })}>Redeliver</button>`}</td>`}</tr>`)}
        ${list.length === 0 && html`<tr><td colspan="7" class="muted">No deliveries yet.</td></tr>`}
      </tbody>
    </table>`}<//>
  </section>`
}

function TestEvent({ project, hook, onSent }) {
  const send = useAction()
  const [outcome, setOutcome] = useState(undefined)
  const submit = (event) => {
    event.preventDefault()
    const eventType = new FormData(event.currentTarget).get('event_type')
    send.run(async () => {
      const answer = await api('POST', projectPath(project.id, '/webhooks/test'), { webhook_id: hook.id, event_type: eventType })
      setOutcome(answer.success ? `Delivered in ${answer.duration_ms} ms.` : `Not delivered: ${answer.delivery.error ?? `answered ${answer.delivery.response_code}`}.`)
      onSent()
    })
  }
  return html`<form class="inline" onSubmit=${submit}>
    <label>Test event <select name="event_type">${EVENT_KINDS.map((k) => html`<option>${k}</option>`)}</select></label>
    <button disabled=${send.busy}>Send test</button>
    <span role="status">${outcome}</span>
    <${ErrorText} error=${send.error} />
  </form>`
}

export function Webhooks({ project, canWrite }) {
  const hooks = useLoad(() => api('GET', projectPath(project.id, '/webhooks')).then((a) => a.webhooks), [project.id])
  const [shown, setShown] = useState(undefined)
  const [round, setRound] = useState(0)
  const change = useAction()
  const update = (hook, work) => change.run(async () => {
    await work()
    if (shown === hook.id) setShown(undefined)
    hooks.reload()
  })
  return html`<section>
    <h1>Webhooks <span class="muted">· ${project.name}</span></h1>
    <${ErrorText} error=${change.error} />
    <${Loaded} state=${hooks} what="webhooks">${(list) => html`<table>
      <caption>Webhooks of ${project.name}</caption>
      <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
      <tbody>
        ${list.map((hook) => html`<tr><td>${hook.url}</td><td>${hook.events.join(', ')}</td><td><${Status} value=${hook.active ? 'active' : 'inactive'} /></td><td>${when(hook.created)}</td>
          <td class="actions">
            <button type="button" aria-expanded=${String(shown === hook.id)} onClick=${() => setShown(shown === hook.id ? undefined : hook.id)}>Deliveries</button>
            ${canWrite && html`
              <button type="button" onClick=${() => update(hook, () => api('PATCH', projectPath(project.id, `/webhooks/${encodeURIComponent(hook.id)}`), { active: !hook.active }))}>${hook.active ? 'Disable' : 'Enable'}</button>
              <${ConfirmButton} label="Delete" danger title=${`Delete the webhook to ${hook.url}?`} confirmLabel="Delete webhook"
                question="Its deliveries are deleted with it." onConfirm=${() => update(hook, () => api('DELETE', projectPath(project.id, `/webhooks/${encodeURIComponent(hook.id)}`)))} />`}
          </td></tr>
          ${canWrite && hook.active && html`<tr class="sub"><td colspan="5"><${TestEvent} project=${project} hook=${hook} onSent=${() => setRound((r) => r + 1)} /></td></tr>`}`)}
        ${list.length === 0 && html`<tr><td colspan="5" class="muted">No webhooks yet.</td></tr>`}
      </tbody>
    </table>
    ${shown !== undefined && list.some((h) => h.id === shown) && html`<${Deliveries} key=${`${shown}-${round}`} project=${project} hook=${list.find((h) => h.id === shown)} canWrite=${canWrite} />`}`}<//>
    ${canWrite && html`<${Register} project=${project} onAdded=${hooks.reload} />`}
  </section>`
}
