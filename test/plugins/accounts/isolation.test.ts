// One organization never sees or changes another's projects, keys, members or records: every
// management endpoint answers 404 for the other organization's ids and lists only its own.
import t from 'tap'
import { call, hello } from '../../helpers/http.ts'
import { invitedMember, post, startAccounts, startMailbox, verifiedOwner, testOnEachStore } from './helpers.ts'

testOnEachStore(t, 'every management endpoint keeps organizations apart', async (t, store) => {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, store })
  const alice = await verifiedOwner(gw, mailbox, 'alice@a.example', 'Org A')
  const aliceMember = await invitedMember(gw, mailbox, alice, 'colleague@a.example', 'member')
  const bob = await verifiedOwner(gw, mailbox, 'bob@b.example', 'Org B')
  const promptTokensOf = async (headers: Record<string, string>) =>
    (await call(`${gw.mainUrl}/api/ai/query`, { body: { question: 'What projects do we have?' }, headers })).body.usage.promptTokens as number
  const bobBefore = await promptTokensOf(bob.headers)
  const aliceBefore = await promptTokensOf(alice.headers)

  const project = await post(`${gw.url}/api/projects`, { name: 'a-secret-project', plan: 'pro', budgetDollars: 10 }, alice.headers)
  const key = await post(`${gw.url}/api/projects/${project.body.id}/keys`, { name: 'a-key', env: 'prod' }, alice.headers)
  t.equal((await call(`${gw.mainUrl}/api/ai/complete`, { key: key.body.key, body: hello })).status, 200, 'a key made by the API works on the gateway')
  t.ok((await promptTokensOf(alice.headers)) > aliceBefore, "A's query summary now describes the project")
  t.equal(await promptTokensOf(bob.headers), bobBefore, "B's does not change")

  const as = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    call(`${gw.url}${path}`, { method, headers: bob.headers, ...(body === undefined ? {} : { body }) })
  const foreign: Array<[string, ReturnType<typeof as>]> = [
    ['GET project', as('GET', `/api/projects/${project.body.id}`)],
    ['PATCH project', as('PATCH', `/api/projects/${project.body.id}`, { plan: 'free' })],
    ['list keys', as('GET', `/api/projects/${project.body.id}/keys`)],
    ['create key', as('POST', `/api/projects/${project.body.id}/keys`, { name: 'stolen' })],
    ['deactivate key', as('POST', `/api/keys/${key.body.id}/deactivate`, {})],
    ['reactivate key', as('POST', `/api/keys/${key.body.id}/reactivate`, {})],
    ['delete key', as('DELETE', `/api/keys/${key.body.id}`)],
    ["change a member's role", as('PATCH', `/api/orgs/me/members/${aliceMember.userId}`, { role: 'admin' })],
    ['remove a member', as('DELETE', `/api/orgs/me/members/${aliceMember.userId}`)],
  ]
  for (const [what, answer] of foreign) {
    const res = await answer
    t.equal(res.status, 404, what)
    t.match(res.body, { error: 'Not found' }, what)
  }
  t.same((await as('GET', '/api/projects/proj_does_not_exist')).status, 404, 'exactly like an id that does not exist')

  t.same((await as('GET', '/api/projects')).body, { projects: [] })
  t.match((await as('GET', '/api/orgs/me')).body, { name: 'Org B', role: 'owner' })
  t.same(
    (await as('GET', '/api/orgs/me/members')).body.members.map((m: { email: string }) => m.email),
    ['bob@b.example'],
  )
  t.equal((await as('PATCH', '/api/orgs/me', { name: 'Org B2' })).status, 200)
  t.equal((await as('POST', '/api/orgs/me/invitations', { email: 'spy@b.example' })).status, 201)
  const bobLog = (await as('GET', '/api/orgs/me/audit-log')).body.entries as Array<{ action: string }>
  t.same(
    bobLog.map((e) => e.action),
    ['member.invite', 'organization.rename'],
  )
  t.notMatch(JSON.stringify(bobLog), project.body.id, "the audit log holds only the organization's own records")

  const aliceProject = await call(`${gw.url}/api/projects/${project.body.id}`, { headers: alice.headers })
  t.match(aliceProject.body, { plan: 'pro', name: 'a-secret-project' }, 'nothing of A changed')
  t.match((await call(`${gw.url}/api/projects/${project.body.id}/keys`, { headers: alice.headers })).body.keys, [{ id: key.body.id, status: 'active' }])
  t.match((await call(`${gw.url}/api/orgs/me`, { headers: alice.headers })).body, { name: 'Org A' })
  t.equal((await call(`${gw.url}/api/orgs/me/members`, { headers: alice.headers })).body.members.length, 2)
  t.equal((await call(`${gw.mainUrl}/api/ai/complete`, { key: key.body.key, body: hello })).status, 200)
})
