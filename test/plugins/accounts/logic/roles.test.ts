// Roles in an organization: owners and admins change things, members read; owners alone read
// the audit log and manage owners.
import t, { type Test } from 'tap'
import { call } from '../../../helpers/http.ts'
import {
  invitedMember,
  post,
  startAccounts,
  startMailbox,
  verifiedOwner,
  type AccountsGateway,
  type Mailbox,
  type Session,
  type StoreKind,
  testOnEachStore,
} from '../helpers.ts'
import { manualClock } from '../../../helpers/manual-clock.ts'

async function team(
  t: Test,
  store: StoreKind,
): Promise<{ gw: AccountsGateway; mailbox: Mailbox; owner: Session; admin: Session; member: Session; projectId: string }> {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, clock: manualClock(), store })
  const owner = await verifiedOwner(gw, mailbox, 'owner@example.com', 'Team')
  const admin = await invitedMember(gw, mailbox, owner, 'admin@example.com', 'admin')
  const member = await invitedMember(gw, mailbox, owner, 'member@example.com', 'member')
  const project = await post(`${gw.url}/api/projects`, { name: 'site', plan: 'pro', budgetDollars: 50 }, owner.headers)
  return { gw, mailbox, owner, admin, member, projectId: project.body.id }
}

testOnEachStore(t, 'a member cannot create keys or change anything, and gets 403 Forbidden; an admin can', async (t, store) => {
  const { gw, member, admin, projectId } = await team(t, store)
  const denied = await post(`${gw.url}/api/projects/${projectId}/keys`, { name: 'ci' }, member.headers)
  t.equal(denied.status, 403)
  t.match(denied.body, { error: 'Forbidden', message: String })
  t.equal((await post(`${gw.url}/api/projects`, { name: 'x' }, member.headers)).status, 403)
  t.equal((await call(`${gw.url}/api/projects/${projectId}`, { method: 'PATCH', body: { plan: 'growth' }, headers: member.headers })).status, 403)
  t.equal((await call(`${gw.url}/api/orgs/me`, { method: 'PATCH', body: { name: 'Mine' }, headers: member.headers })).status, 403)
  t.equal((await post(`${gw.url}/api/orgs/me/invitations`, { email: 'friend@example.com' }, member.headers)).status, 403)
  t.equal((await call(`${gw.url}/api/projects/${projectId}`, { headers: member.headers })).status, 200, 'members read')
  t.equal((await call(`${gw.url}/api/projects/${projectId}/keys`, { headers: member.headers })).status, 200)
  t.equal((await call(`${gw.url}/api/orgs/me/members`, { headers: member.headers })).status, 200)

  const created = await post(`${gw.url}/api/projects/${projectId}/keys`, { name: 'ci', type: 'sk', env: 'prod' }, admin.headers)
  t.equal(created.status, 201)
  t.match(created.body, { name: 'ci', projectId, status: 'active', type: 'sk', env: 'prod', key: /^sk_prod_/ })
  t.equal((await post(`${gw.url}/api/keys/${created.body.id}/deactivate`, {}, member.headers)).status, 403)
  t.equal((await call(`${gw.url}/api/keys/${created.body.id}`, { method: 'DELETE', headers: member.headers })).status, 403)

  const redacting = await call(`${gw.url}/api/projects/${projectId}`, { method: 'PATCH', body: { governor: { redactOutput: true } }, headers: admin.headers })
  t.match(redacting.body, { governor: { redactOutput: true, strictMode: false } }, 'an admin turns redaction on')
  const bad = await call(`${gw.url}/api/projects/${projectId}`, { method: 'PATCH', body: { governor: { redactOutput: 'yes' } }, headers: admin.headers })
  t.match(bad, { status: 400, body: { error: /redactOutput must be true or false/ } })
})

testOnEachStore(t, 'role changes: admins cannot touch owners, the last owner stays, and a new role applies at once', async (t, store) => {
  const { gw, owner, admin, member } = await team(t, store)
  const setRole = (session: Session, userId: string, role: string) =>
    call(`${gw.url}/api/orgs/me/members/${userId}`, { method: 'PATCH', body: { role }, headers: session.headers })

  t.equal((await setRole(admin, member.userId, 'owner')).status, 403, 'an admin cannot make owners')
  t.equal((await setRole(admin, owner.userId, 'member')).status, 403, 'nor demote one')
  t.equal((await call(`${gw.url}/api/orgs/me/audit-log`, { headers: admin.headers })).status, 403, 'the audit log is for owners')
  const demoted = await setRole(owner, owner.userId, 'admin')
  t.equal(demoted.status, 409, 'the last owner cannot step down')
  t.match(demoted.body, { error: 'Conflict' })

  t.equal((await setRole(admin, member.userId, 'admin')).status, 200)
  t.equal((await post(`${gw.url}/api/projects`, { name: 'by-new-admin' }, member.headers)).status, 201, 'the same access token now has the admin role')
  t.equal((await setRole(owner, admin.userId, 'owner')).status, 200)
  t.equal((await setRole(admin, owner.userId, 'member')).status, 200, 'with two owners, one may demote the other')

  const removed = await call(`${gw.url}/api/orgs/me/members/${member.userId}`, { method: 'DELETE', headers: admin.headers })
  t.equal(removed.status, 200)
  t.equal((await call(`${gw.url}/api/orgs/me`, { headers: member.headers })).status, 401, "a removed member's token stops working")
  t.equal((await post(`${gw.url}/api/auth/refresh`, { refresh_token: member.refreshToken })).status, 401, 'and their session cannot be refreshed')
  const relogin = await post(`${gw.url}/api/auth/login`, { email: member.email, password: member.password })
  t.equal(relogin.status, 403, 'an account without an organization cannot log in')
  const members = await call(`${gw.url}/api/orgs/me/members`, { headers: admin.headers })
  t.same(members.body.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`).sort(), [
    'admin@example.com:owner',
    'owner@example.com:member',
  ])
})

testOnEachStore(t, 'an invitation joins an account that has no organization, and refuses one that has', async (t, store) => {
  const { gw, mailbox, owner, member } = await team(t, store)
  const other = await verifiedOwner(gw, mailbox, 'other-owner@example.com', 'Elsewhere')
  await post(`${gw.url}/api/orgs/me/invitations`, { email: other.email }, owner.headers)
  const token = new URL((await mailbox.next(other.email)).links[0]!).searchParams.get('token')!
  const refused = await post(`${gw.url}/api/orgs/invitations/accept`, { token })
  t.equal(refused.status, 409, 'a member of another organization must leave first')

  await call(`${gw.url}/api/orgs/me/members/${member.userId}`, { method: 'DELETE', headers: owner.headers })
  await post(`${gw.url}/api/orgs/me/invitations`, { email: member.email, role: 'admin' }, owner.headers)
  const back = await post(`${gw.url}/api/orgs/invitations/accept`, { token: new URL((await mailbox.next(member.email)).links[0]!).searchParams.get('token')! })
  t.equal(back.status, 200)
  t.equal(back.body.user.id, member.userId, 'the existing account joins')
  t.equal((await post(`${gw.url}/api/auth/login`, { email: member.email, password: member.password })).status, 200, 'with its own password')
  t.equal((await call(`${gw.url}/api/orgs/me`, { headers: member.headers })).status, 401, 'sessions from before the removal stay dead after rejoining')
  t.equal((await post(`${gw.url}/api/auth/refresh`, { refresh_token: member.refreshToken })).status, 401)
  t.equal((await post(`${gw.url}/api/orgs/invitations/accept`, { token: 'y'.repeat(43) })).status, 401)
})

testOnEachStore(t, 'the audit log records who changed what and when, and never a key', async (t, store) => {
  const { gw, owner, admin, projectId } = await team(t, store)
  const created = await post(`${gw.url}/api/projects/${projectId}/keys`, { name: 'ci' }, admin.headers)
  await post(`${gw.url}/api/keys/${created.body.id}/deactivate`, {}, admin.headers)
  await post(`${gw.url}/api/keys/${created.body.id}/reactivate`, {}, admin.headers)
  await call(`${gw.url}/api/projects/${projectId}`, { method: 'PATCH', body: { budgetDollars: 75, governor: { strictMode: true } }, headers: admin.headers })
  await call(`${gw.url}/api/keys/${created.body.id}`, { method: 'DELETE', headers: admin.headers })
  await call(`${gw.url}/api/orgs/me`, { method: 'PATCH', body: { name: 'Team Two' }, headers: owner.headers })

  const log = await call(`${gw.url}/api/orgs/me/audit-log`, { headers: owner.headers })
  t.equal(log.status, 200)
  t.same(
    log.body.entries.map((e: { action: string }) => e.action),
    [
      'organization.rename',
      'key.delete',
      'project.update',
      'key.reactivate',
      'key.deactivate',
      'key.create',
      'project.create',
      'member.join',
      'member.invite',
      'member.join',
      'member.invite',
    ],
    'newest first',
  )
  t.match(log.body.entries[2], {
    actor: { userId: admin.userId, email: 'admin@example.com' },
    target: { type: 'project', id: projectId },
    details: { fields: ['budgetDollars', 'governor'] },
    at: new Date(gw.clock.now()).toISOString(),
    id: /^[0-9A-Z]{26}$/,
  })
  t.match(log.body.entries[5], {
    actor: { email: 'admin@example.com' },
    target: { type: 'key', id: created.body.id },
    details: { prefix: created.body.prefix },
  })
  t.notMatch(JSON.stringify(log.body), created.body.key, 'the key itself is not in the log')
  t.equal((await call(`${gw.url}/api/orgs/me/audit-log?limit=2`, { headers: owner.headers })).body.entries.length, 2)
  t.equal((await call(`${gw.url}/api/orgs/me/audit-log?limit=0`, { headers: owner.headers })).status, 400)
})
