// The scan of the model's answer: its findings become violations and alerts; in strict mode a
// JSON answer with a high or critical finding is withheld (streams: stream-enforcement.test.ts).
import t, { type Test } from 'tap'
import { openStore } from '../../../proxy/stores/store.ts'
import { lmdbAuditChain } from '../../../plugins/governor/store/lmdb/audit-chain.ts'
import { verifyAuditChain } from '../../../plugins/governor/state.ts'
import { call, parseSse } from '../../helpers/http.ts'
import { startAnswerUpstream } from './answer-upstream.ts'
import { governedGateway, type GovernedGatewayOptions, SENSITIVE } from './fixtures.ts'

const LEAKY_ANSWER = `Sure. The deploy key is ${SENSITIVE.secret}; write to ${SENSITIVE.email} if it fails.`

async function gatewayAnswering(t: Test, answer: string, options: GovernedGatewayOptions = {}) {
  const upstream = await startAnswerUpstream(answer)
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { ...options, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  return { gw, upstream }
}

t.test('findings in an answer are recorded as output violations with an alert, and the answer is delivered', async (t) => {
  const { gw } = await gatewayAnswering(t, LEAKY_ANSWER)
  const res = await gw.ask('complete', 'How do I deploy?')
  t.equal(res.status, 200)
  t.equal(res.body.text, LEAKY_ANSWER)
  t.match(res.headers, { 'x-governor-risk-level': 'low', 'x-governor-violations': '0' }, "the headers give the request's verdict")
  const listed = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
  t.same(listed.map((v: { category: string; source: string; severity: string }) => [v.category, v.source, v.severity]).sort(), [
    ['EMAIL_ADDRESS', 'output', 'MEDIUM'],
    ['SECRET', 'output', 'CRITICAL'],
  ])
  const [alert] = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
  t.match(alert, { type: 'sensitive_output', severity: 'CRITICAL', title: 'Sensitive data in a model answer', status: 'open' })
  const output = await call(`${gw.url}/api/compliance/audit/${alert.auditId}`, { key: gw.pk })
  t.match(output.body, {
    kind: 'output',
    decision: 'review',
    requestAuditId: res.headers['x-governor-audit-id'],
    findingCounts: { SECRET: 1, EMAIL_ADDRESS: 1 },
  })
})

t.test('strict mode withholds a JSON answer with a high or critical finding: 403, and the answer is neither sent nor cached', async (t) => {
  const { gw, upstream } = await gatewayAnswering(t, LEAKY_ANSWER, { changes: { governor: { strictMode: true } } })
  const res = await gw.ask('complete', 'How do I deploy?')
  t.equal(res.status, 403)
  const auditId = res.body.auditId
  t.strictSame(res.body, {
    error: 'Request blocked by Governor',
    message: `The model's answer was withheld: strict mode does not let out an answer with high or critical findings (SECRET). The audit record ${auditId} lists the reasons.`,
    code: 'governor_blocked',
    auditId,
    riskLevel: 'high',
    violations: [
      { type: 'PRIVACY', severity: 'MEDIUM' },
      { type: 'SECURITY', severity: 'CRITICAL' },
    ],
  })
  t.match(res.headers, { 'x-governor-approved': 'false', 'x-governor-audit-id': auditId })
  t.notMatch(JSON.stringify(res), SENSITIVE.secret)
  const record = await call(`${gw.url}/api/compliance/audit/${auditId}`, { key: gw.pk })
  t.match(record.body, { kind: 'output', decision: 'withheld' })
  const [alert] = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
  t.match(alert, { type: 'withheld_output', title: 'Model answer withheld by Governor', auditId })
  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}&period=day`, { key: gw.sk })
  t.match(usage.body.models['gpt-4o-mini'], { requests: 1, tokens: 22 }, 'the model generated the answer, so it is metered')
  t.ok(usage.body.models['gpt-4o-mini'].cost > 0)

  const again = await gw.ask('complete', 'How do I deploy?')
  t.equal(again.status, 403)
  t.not(again.headers['x-cache-status'], 'HIT')
  t.equal(upstream.requests(), 2, 'the withheld answer was not stored, so the model was asked again')
})

t.test('strict mode withholds a JSON answer with a card number (a high finding) too', async (t) => {
  const { gw } = await gatewayAnswering(t, `Your card is ${SENSITIVE.card}.`, { changes: { governor: { strictMode: true } } })
  const res = await gw.ask('complete', 'Which card is on file?')
  t.equal(res.status, 403)
  t.match(res.body, { error: 'Request blocked by Governor', violations: [{ type: 'PRIVACY', severity: 'HIGH' }] })
  t.match(res.body.message, /\(CREDIT_CARD\)/)
  t.notMatch(JSON.stringify(res), '4111')
})

t.test('outside strict mode a stream is delivered as generated and its findings recorded', async (t) => {
  const { gw } = await gatewayAnswering(t, LEAKY_ANSWER)
  const res = await gw.ask('chat', 'How do I deploy?')
  t.equal(res.status, 200)
  const events = parseSse(res.body)
  t.equal(
    events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text)
      .join(''),
    LEAKY_ANSWER,
  )
  t.equal(events.at(-1)!.event, 'done')
  const [alert] = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
  t.match(alert, { type: 'sensitive_output', severity: 'CRITICAL' })
  const record = await call(`${gw.url}/api/compliance/audit/${alert.auditId}`, { key: gw.pk })
  t.match(record.body, { kind: 'output', decision: 'review', requestAuditId: res.headers['x-governor-audit-id'] })
})

t.test('a cached answer is scanned again when served, so each hit is recorded', async (t) => {
  const { gw, upstream } = await gatewayAnswering(t, `Noted, I will write to ${SENSITIVE.email}.`)
  await gw.ask('complete', 'How do I deploy?')
  const hit = await gw.ask('complete', 'How do I deploy?')
  t.equal(hit.headers['x-cache-status'], 'HIT')
  t.equal(upstream.requests(), 1)
  const alerts = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
  t.equal(alerts.length, 2)
})

t.test("an answer with nothing worse than a link or a date adds no record beyond the request's own", async (t) => {
  const { gw } = await gatewayAnswering(t, 'See https://example.org/help, it is updated every Monday at 10:00.')
  const res = await gw.ask('complete', 'Where is the help page?')
  t.equal(res.status, 200)
  t.same((await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data, [])
  t.same((await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data, [])
  const store = openStore(gw.dataDir)
  t.teardown(() => store.close())
  t.same(await verifyAuditChain(lmdbAuditChain(store.forPlugin('governor')), gw.projectId), { intact: true, records: 1 })
})
