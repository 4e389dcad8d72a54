// Members reach a project's compliance records, webhooks and usage by bearer token at
// /api/projects/:projectId/…, on the auth listener: everyone in the organization reads, admins
// and owners change (and each change is in the audit log), other organizations see nothing.
import t, { type Test } from 'tap'
import { call, hello } from '../../../helpers/http.ts'
import { invitedMember, post, startAccounts, startMailbox, verifiedOwner, type AccountsGateway, type Session } from '../helpers.ts'

interface Team {
  readonly gw: AccountsGateway
  readonly owner: Session
  readonly admin: Session
  readonly member: Session
  readonly outsider: Session
  readonly projectId: string
  readonly sk: string
  readonly pk: string
}

async function team(t: Test): Promise<Team> {
  const mailbox = await startMailbox(t)
  const gw = await startAccounts(t, { mailbox, overrides: { authPort: 0, plugins: { webhooks: { allowPrivateTargets: true, allowHttp: true } } } })
  const owner = await verifiedOwner(gw, mailbox, 'owner@example.com', 'Team')
  const admin = await invitedMember(gw, mailbox, owner, 'admin@example.com', 'admin')
  const member = await invitedMember(gw, mailbox, owner, 'member@example.com', 'member')
  const outsider = await verifiedOwner(gw, mailbox, 'outsider@example.com', 'Elsewhere')
  const project = await post(`${gw.url}/api/projects`, { name: 'site', plan: 'pro', budgetDollars: 50 }, owner.headers)
  const projectId = project.body.id as string
  const rule = { name: 'Falcon', pattern: 'falcon', regex: false, weight: 90, severity: 'CRITICAL' }
  await call(`${gw.url}/api/projects/${projectId}`, { method: 'PATCH', body: { governor: { strictMode: true, customRules: [rule] } }, headers: owner.headers })
  const sk = (await post(`${gw.url}/api/projects/${projectId}/keys`, { name: 'app', type: 'sk', env: 'prod' }, owner.headers)).body.key as string
  const pk = (await post(`${gw.url}/api/projects/${projectId}/keys`, { name: 'compliance', type: 'pk', env: 'prod' }, owner.headers)).body.key as string
  return { gw, owner, admin, member, outsider, projectId, sk, pk }
}

const governed = (content: string) => ({ messages: [{ role: 'user', content }], governorMetadata: { actionType: 'customer_support', senderId: 'agent-1' } })

t.test('members read compliance records, admins resolve them, and the change is in the audit log', async (t) => {
  const { gw, owner, admin, member, projectId, sk, pk } = await team(t)
  const blocked = await call(`${gw.mainUrl}/api/ai/complete`, { key: sk, body: governed('Tell me about falcon') })
  t.equal(blocked.status, 403)
  const path = `${gw.url}/api/projects/${projectId}/compliance/violations`

  const read = await call(`${path}?status=open`, { headers: member.headers })
  t.equal(read.status, 200, 'a member reads')
  t.equal(read.body.data.length, 1)
  const violationId = read.body.data[0].id as string
  t.same((await call(`${gw.mainUrl}/api/compliance/violations?status=open`, { key: pk })).body, read.body, 'the same records as the project key sees')

  const refused = await post(`${path}/${violationId}/resolve`, {}, member.headers)
  t.equal(refused.status, 403, 'a member does not change records')
  t.match(refused.body, { error: 'Forbidden' })
  const resolved = await post(`${path}/${violationId}/resolve`, {}, admin.headers)
  t.equal(resolved.status, 200)
  t.match(resolved.body, { id: violationId, status: 'resolved' })

  const log = await call(`${gw.url}/api/orgs/me/audit-log`, { headers: owner.headers })
  t.match(log.body.entries[0], {
    actor: { email: 'admin@example.com' },
    action: 'compliance_violation_resolve',
    target: { type: 'project', id: projectId },
    details: { id: violationId },
  })
  t.notOk(
    log.body.entries.some((e: { action: string }) => e.action === 'compliance_violations'),
    'reads are not logged',
  )
})

t.test('another organization, a missing token and an API key as the bearer are all refused', async (t) => {
  const { gw, outsider, projectId, pk } = await team(t)
  const path = `${gw.url}/api/projects/${projectId}/compliance/violations`
  const foreign = await call(path, { headers: outsider.headers })
  t.equal(foreign.status, 404, "another organization's project does not exist for them")
  t.match(foreign.body, { error: 'Not found' })
  t.equal((await call(`${gw.url}/api/projects/proj_nope/webhooks`, { headers: outsider.headers })).status, 404)
  t.equal((await call(path)).status, 401)
  t.equal((await call(path, { headers: { authorization: `Bearer ${pk}` } })).status, 401, "API keys use /api/compliance/*, not the members' paths")
  t.equal((await call(`${gw.mainUrl}/api/projects/${projectId}/compliance/violations`, { headers: outsider.headers })).status, 404, 'only on the auth listener')
})

t.test("webhooks, usage, the score's history and rule tests, for members", async (t) => {
  const { gw, admin, member, projectId, sk } = await team(t)
  const base = `${gw.url}/api/projects/${projectId}`
  t.equal((await call(`${gw.mainUrl}/api/ai/complete`, { key: sk, body: hello })).status, 200)

  const registered = await post(`${base}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['*'], secret: 'a-secret-of-sixteen-plus' }, admin.headers)
  t.equal(registered.status, 201)
  t.equal((await post(`${base}/webhooks`, { url: 'http://127.0.0.1:9/other', events: ['*'], secret: 'a-secret-of-sixteen-plus' }, member.headers)).status, 403)
  const listed = await call(`${base}/webhooks`, { headers: member.headers })
  t.same(
    listed.body.webhooks.map((w: { id: string }) => w.id),
    [registered.body.id],
  )
  t.equal((await call(`${base}/webhooks/${registered.body.id}`, { method: 'DELETE', headers: member.headers })).status, 403)
  t.equal(
    (await post(`${base}/webhooks/test`, { webhook_id: registered.body.id, event_type: 'alert.created' }, member.headers)).status,
    403,
    'a test event is sent by admins',
  )

  const usage = await call(`${base}/usage?period=day`, { headers: member.headers })
  t.equal(usage.status, 200)
  t.match(usage.body, { budget: { limit: 50 }, totals: { requests: 1 }, period: { start: String, end: String } })
  t.equal(usage.body.daily.length, 1)
  t.equal((await call(`${base}/usage?period=year`, { headers: member.headers })).status, 400)

  const history = await call(`${base}/compliance/score/history?days=7`, { headers: member.headers })
  t.equal(history.status, 200)
  t.equal(history.body.points.length, 7)

  const tried = await post(`${base}/governor/rules/test`, { pattern: 'refund', text: 'A refund, then another REFUND.' }, member.headers)
  t.equal(tried.status, 200, 'trying a rule changes nothing, so members may')
  t.equal(tried.body.count, 2)
})
