// A key's own budget and rpm through the management API: set when the key is created, changed or
// removed with PATCH /api/keys/:id by an admin, each change in the audit log.
import t from 'tap'
import { call, hello } from '../../helpers/http.ts'
import { invitedMember, post, startAccounts, startMailbox, testOnEachStore, verifiedOwner } from './helpers.ts'

testOnEachStore(t, 'keys carry a budget and rpm of their own, set and changed by admins', async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const owner = await verifiedOwner(gw, mailbox, 'owner@example.com', 'Team')
  const member = await invitedMember(gw, mailbox, owner, 'member@example.com', 'member')
  const projectId = (await post(`${gw.url}/api/projects`, { name: 'site', plan: 'enterprise', budgetDollars: 50 }, owner.headers)).body.id as string

  const created = await post(
    `${gw.url}/api/projects/${projectId}/keys`,
    { name: 'app', type: 'sk', env: 'prod', budgetDollars: 0.000001, rpm: 3 },
    owner.headers,
  )
  t.equal(created.status, 201)
  t.match(created.body, { name: 'app', budgetDollars: 0.000001, rpm: 3 })
  const { id, key } = created.body as { id: string; key: string }
  t.equal((await call(`${gw.mainUrl}/api/ai/complete`, { key, body: hello })).status, 402)

  const bad = await post(`${gw.url}/api/projects/${projectId}/keys`, { name: 'x', rpm: 0 }, owner.headers)
  t.equal(bad.status, 400)
  t.match(bad.body.message, /rpm must be at least 1/)
  const patch = (body: unknown, headers = owner.headers) => call(`${gw.url}/api/keys/${id}`, { method: 'PATCH', body, headers })
  t.equal((await patch({ budgetDollars: -1 })).status, 400)
  t.equal((await patch({ budgetDollars: null }, member.headers)).status, 403, 'a member does not change keys')

  const changed = await patch({ budgetDollars: null, rpm: 1 })
  t.equal(changed.status, 200)
  t.notOk('budgetDollars' in changed.body, 'null removes the budget')
  t.match(changed.body, { id, rpm: 1 })
  t.equal((await call(`${gw.mainUrl}/api/ai/complete`, { key, body: hello })).status, 200)
  t.equal((await call(`${gw.mainUrl}/api/ai/complete`, { key, body: hello })).status, 429)
  t.match((await call(`${gw.url}/api/projects/${projectId}/keys`, { headers: member.headers })).body.keys, [{ id, rpm: 1 }])

  const log = await call(`${gw.url}/api/orgs/me/audit-log`, { headers: owner.headers })
  t.match(log.body.entries[0], { action: 'key.update', target: { type: 'key', id }, details: { budgetDollars: null, rpm: 1 } })
})
