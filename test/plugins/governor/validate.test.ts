// POST /api/governor/validate: the verdict with findings located in each message, an audit
// record, and no model call or charge.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { startAnswerUpstream } from './answer-upstream.ts'
import { governedGateway, metadata, SENSITIVE } from './fixtures.ts'

t.test("answers the verdict with findings whose offsets index into each message's content", async (t) => {
  const upstream = await startAnswerUpstream('unused')
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  const messages = [
    { role: 'system', content: 'You are a support agent.' },
    { role: 'user', content: `Hi, my card is ${SENSITIVE.card} and my mail is ${SENSITIVE.email}.` },
    { role: 'assistant', content: `Thanks. Key for the tool: ${SENSITIVE.secret}` },
  ]
  const res = await call(`${gw.url}/api/governor/validate`, { key: gw.sk, body: { messages, governorMetadata: metadata } })
  t.equal(res.status, 200)
  const located = res.body.findings.map((f: { type: string; start: number; end: number; messageIndex: number }) => [
    f.type,
    f.messageIndex,
    messages[f.messageIndex]!.content.slice(f.start, f.end),
  ])
  t.same(located, [
    ['CREDIT_CARD', 1, SENSITIVE.card],
    ['EMAIL_ADDRESS', 1, SENSITIVE.email],
    ['SECRET', 2, SENSITIVE.secret],
  ])
  t.match(res.body, {
    validated: true,
    approved: false,
    decision: 'review',
    riskLevel: 'critical',
    riskScore: 100,
    violations: [
      { type: 'PRIVACY', severity: 'HIGH', category: 'CREDIT_CARD' },
      { type: 'PRIVACY', severity: 'MEDIUM' },
      { type: 'SECURITY', severity: 'CRITICAL' },
    ],
    reasons: [{ code: 'action_risk', points: 5 }],
    auditId: /^aud_/,
  })
  t.ok(res.body.findings.every((f: { score: number }) => f.score > 0 && f.score <= 1))
  t.equal(res.headers['x-governor-audit-id'], res.body.auditId)
  t.equal(upstream.requests(), 0, 'no model call')
  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.sk })
  t.match(usage.body, { budget: { used: 0 }, models: {} }, 'no charge')

  const record = await call(`${gw.url}/api/compliance/audit/${res.body.auditId}`, { key: gw.pk })
  t.match(record.body, {
    kind: 'validate',
    decision: 'review',
    findingCounts: { CREDIT_CARD: 1, EMAIL_ADDRESS: 1, SECRET: 1 },
    violationIds: [],
    alertId: null,
  })
  t.same((await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data, [], 'a validation opens no violations')
})

t.test('takes either key type, says what strict mode would decide, and refuses a free plan', async (t) => {
  const gw = await governedGateway(t, { changes: { governor: { strictMode: true } } })
  const body = { messages: [{ role: 'user', content: `Key ${SENSITIVE.secret}` }], governorMetadata: metadata }
  const withPk = await call(`${gw.url}/api/governor/validate`, { key: gw.pk, body })
  t.match(withPk.body, { approved: false, decision: 'blocked', riskLevel: 'high' })
  t.equal((await call(`${gw.url}/api/governor/validate`, { key: gw.sk, body })).status, 200)
  const free = await governedGateway(t, { plan: 'free' })
  const refused = await call(`${free.url}/api/governor/validate`, { key: free.sk, body })
  t.equal(refused.status, 403)
  t.match(refused.body.message, /needs the Pro or Enterprise plan/)
})

t.test('validates its body: messages and governorMetadata are both required', async (t) => {
  const gw = await governedGateway(t)
  const url = `${gw.url}/api/governor/validate`
  t.equal((await call(url, { key: gw.sk, body: { messages: [{ role: 'user', content: 'x' }] } })).status, 400)
  t.equal((await call(url, { key: gw.sk, body: { messages: [], governorMetadata: metadata } })).status, 400)
  t.equal(
    (await call(url, { key: gw.sk, body: { messages: [{ role: 'user', content: 'x' }], governorMetadata: { ...metadata, actionType: 'nope' } } })).status,
    400,
  )
})

t.test('a request with many long messages is scanned in a few pool tasks instead of filling the pool queue', async (t) => {
  const gw = await governedGateway(t, { overrides: { pool: { maxThreads: 2, maxQueue: 64, idleTimeoutMs: 60_000 } } })
  const messages = Array.from({ length: 700 }, (_, i) => ({
    role: 'user',
    content: `${'Notes from the weekly call, nothing sensitive. '.repeat(24)}Reach me at person${i}@example.org.`,
  }))
  const res = await call(`${gw.url}/api/governor/validate`, { key: gw.sk, body: { messages, governorMetadata: metadata } })
  t.equal(res.status, 200, '700 messages of about 1.2 KB each, on a queue of 64')
  t.equal(res.body.findings.filter((f: { type: string }) => f.type === 'EMAIL_ADDRESS').length, 700)
})
