// Members of the organization and invitations. Everyone sees the list; admins change roles,
// remove members and invite (only owners touch owners; the API says so when it refuses).
import { api } from '../api.js'
import { when } from '../format.js'
import { ConfirmButton, ErrorText, fieldsOf, html, Loaded, useAction, useLoad, useState } from '../ui.js'

const ROLES = ['owner', 'admin', 'member']

function Invite() {
  const invite = useAction()
  const [sent, setSent] = useState(undefined)
  const submit = (event) => {
    const form = event.currentTarget
    const { email, role } = fieldsOf(event)
    setSent(undefined)
    invite.run(async () => {
      const answer = await api('POST', '/api/orgs/me/invitations', { email, role })
      form.reset()
      setSent(`Invitation sent to ${answer.invitation.email} as ${answer.invitation.role}; it can be accepted until ${when(answer.invitation.expiresAt)}.`)
    })
  }
  return html`<form class="card" onSubmit=${submit} aria-labelledby="invite-title">
    <h2 id="invite-title">Invite someone</h2>
    <label>E-mail <input name="email" type="email" required /></label>
    <label>Role <select name="role"><option value="member">member (reads only)</option><option value="admin">admin</option></select></label>
    <${ErrorText} error=${invite.error} />
    ${sent !== undefined && html`<p class="success" role="status">${sent}</p>`}
    <button class="primary" disabled=${invite.busy}>Send invitation</button>
  </form>`
}

export function Members({ organization, canWrite }) {
  const members = useLoad(() => api('GET', '/api/orgs/me/members').then((a) => a.members), [organization.id])
  const change = useAction()
  const run = (work) => change.run(async () => {
    await work()
    members.reload()
  })
  const path = (member) => `/api/orgs/me/members/${encodeURIComponent(member.userId)}`
  return html`<section>
    <h1>Members <span class="muted">· ${organization.name}</span></h1>
    <${ErrorText} error=${change.error} />
    <${Loaded} state=${members} what="members">${(list) => html`<table>
      <caption>Members of ${organization.name}</caption>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Joined</th>${canWrite && html`<th scope="col">Actions</th>`}</tr></thead>
      <tbody>${list.map((m) => html`<tr><td>${m.email}</td>
        <td>${canWrite
          ? html`<label class="sr-only" for=${`role-${m.userId}`}>Role of ${m.email}</label>
              <select id=${`role-${m.userId}`} value=${m.role} onChange=${(e) => run(() => api('PATCH', path(m), { role: e.currentTarget.value }))}>
                ${ROLES.map((r) => html`<option value=${r}>${r}</option>`)}</select>`
          : m.role}</td>
        <td>${when(m.joinedAt)}</td>
        ${canWrite && html`<td><${ConfirmButton} label="Remove" danger title=${`Remove ${m.email}?`} confirmLabel="Remove member"
          question="They lose access at once and their sessions end." onConfirm=${() => run(() => api('DELETE', path(m)))} /></td>`}</tr>`)}
      </tbody>
    </table>`}<//>
    ${canWrite && html`<${Invite} />`}
  </section>`
}
