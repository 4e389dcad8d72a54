// The Governor inside the real gateway: headers on every governed answer (complete, chat stream,
// cache hit), strict-mode blocking before any model call or charge, plan and settings refusals,
// bad metadata, a full worker pool, and its metrics.
import t from 'tap'
import { request } from 'undici'
import { call, parseSse } from '../../helpers/http.ts'
import { startAnswerUpstream } from './answer-upstream.ts'
import { governedGateway, governorHeadersOf, metadata, SENSITIVE } from './fixtures.ts'

const AUDIT_ID = /^aud_[0-9a-z]{26}$/

t.test('a governed complete carries the verdict in x-governor-* headers and the audit record behind it', async (t) => {
  const gw = await governedGateway(t)
  const res = await gw.ask('complete', 'Please summarise the return policy for the customer.')
  t.equal(res.status, 200)
  const headers = governorHeadersOf(res)
  t.match(headers, {
    'x-governor-validated': 'true',
    'x-governor-approved': 'true',
    'x-governor-risk-level': 'low',
    'x-governor-risk-score': '5',
    'x-governor-violations': '0',
    'x-governor-audit-id': AUDIT_ID,
  })
  const record = await call(`${gw.url}/api/compliance/audit/${headers['x-governor-audit-id']}`, { key: gw.pk })
  t.equal(record.status, 200)
  t.match(record.body, {
    kind: 'request',
    projectId: gw.projectId,
    decision: 'approved',
    score: 5,
    level: 'low',
    actionType: 'customer_support',
    sender: { id: 'agent-7' },
    model: { provider: 'local', model: 'gpt-4o-mini' },
    requestId: res.headers['x-request-id'],
  })
})

t.test('a chat stream sends the governor headers with its first bytes', async (t) => {
  const gw = await governedGateway(t)
  const res = await request(`${gw.url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': gw.sk, 'content-type': 'application/json' },
    body: JSON.stringify({
      messages: [{ role: 'user', content: `Write to ${SENSITIVE.email} about the delay` }],
      governorMetadata: { ...metadata, recipientCountry: 'DE' },
    }),
  })
  t.match(res.headers['content-type'], /^text\/event-stream/)
  t.match(res.headers, {
    'x-governor-validated': 'true',
    'x-governor-approved': 'true',
    'x-governor-risk-level': 'medium',
    'x-governor-risk-score': String(5 + 12 + 15),
    'x-governor-violations': '1',
    'x-governor-audit-id': AUDIT_ID,
  })
  t.equal(parseSse(await res.body.text()).at(-1)!.event, 'done')
})

t.test('a cache hit is governed too: it gets its own verdict headers and audit record', async (t) => {
  const gw = await governedGateway(t)
  const first = await gw.ask('complete', 'What are your opening hours?')
  const hit = await gw.ask('complete', 'What are your opening hours?')
  t.equal(hit.headers['x-cache-status'], 'HIT')
  t.equal(hit.headers['x-credits-charged'], '0.000000')
  t.match(governorHeadersOf(hit), { 'x-governor-validated': 'true', 'x-governor-risk-level': 'low', 'x-governor-audit-id': AUDIT_ID })
  t.not(hit.headers['x-governor-audit-id'], first.headers['x-governor-audit-id'])
  const record = await call(`${gw.url}/api/compliance/audit/${hit.headers['x-governor-audit-id']}`, { key: gw.pk })
  t.equal(record.body.requestId, hit.headers['x-request-id'])
})

t.test('a request without governorMetadata is not governed', async (t) => {
  const gw = await governedGateway(t)
  const res = await call(`${gw.url}/api/ai/complete`, { key: gw.sk, body: { messages: [{ role: 'user', content: `Card ${SENSITIVE.card}` }] } })
  t.equal(res.status, 200)
  t.same(governorHeadersOf(res), {})
})

t.test('strict mode blocks a critical request with the exact 403 body and headers, before any model call or charge', async (t) => {
  const upstream = await startAnswerUpstream('A harmless answer.')
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, {
    changes: { governor: { strictMode: true } },
    env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url },
  })
  const content = `Card ${SENSITIVE.card}, key ${SENSITIVE.secret}`
  const res = await gw.ask('complete', content)
  t.equal(res.status, 403)
  const auditId = res.headers['x-governor-audit-id']!
  t.match(auditId, AUDIT_ID)
  t.strictSame(res.body, {
    error: 'Request blocked by Governor',
    message: `Strict mode blocks high and critical risk; this request scored 95 (critical). The audit record ${auditId} lists the reasons.`,
    code: 'governor_blocked',
    auditId,
    riskLevel: 'critical',
    violations: [
      { type: 'PRIVACY', severity: 'HIGH' },
      { type: 'SECURITY', severity: 'CRITICAL' },
    ],
  })
  t.match(governorHeadersOf(res), {
    'x-governor-approved': 'false',
    'x-governor-risk-level': 'critical',
    'x-governor-risk-score': '95',
    'x-governor-violations': '2',
  })
  t.equal(res.headers['x-credits-charged'], undefined)
  t.notMatch(JSON.stringify(res.body), SENSITIVE.card)

  const again = await gw.ask('complete', content)
  t.equal(again.status, 403, 'blocked content is never answered from the cache either')
  t.equal(upstream.requests(), 0, 'the provider was never called')
  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.sk })
  t.match(usage.body, { budget: { used: 0 }, cache: { hits: 0, misses: 0 }, models: {} }, 'nothing was charged or metered')

  const alerts = await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })
  t.match(alerts.body.data[0], {
    type: 'blocked_request',
    severity: 'CRITICAL',
    title: 'Request blocked by Governor',
    auditId: again.headers['x-governor-audit-id'],
  })
  const approved = await gw.ask('complete', 'Thanks for your patience!')
  t.equal(approved.status, 200, 'strict mode lets low risk through')
})

t.test('strict mode lets a medium-risk request through with approved false', async (t) => {
  const gw = await governedGateway(t, { changes: { governor: { strictMode: true, autoApproveThreshold: 20 } } })
  const res = await gw.ask('complete', `Card ${SENSITIVE.card} was declined`)
  t.equal(res.status, 200)
  t.match(governorHeadersOf(res), {
    'x-governor-approved': 'false',
    'x-governor-risk-level': 'medium',
    'x-governor-risk-score': '35',
    'x-governor-violations': '1',
  })
})

t.test('a project on the free plan gets 403 saying the Governor needs Pro or Enterprise', async (t) => {
  const gw = await governedGateway(t, { plan: 'free' })
  const res = await gw.ask('complete', 'hello')
  t.equal(res.status, 403)
  t.match(res.body, { error: 'API key lacks required permissions', code: 'insufficient_permissions', message: /needs the Pro or Enterprise plan/ })
  const plain = await call(`${gw.url}/api/ai/complete`, { key: gw.sk, body: { messages: [{ role: 'user', content: 'hello' }] } })
  t.equal(plain.status, 200, 'the same project without governorMetadata is served')
})

t.test('a project with the Governor turned off gets 403 instead of an unchecked answer', async (t) => {
  const gw = await governedGateway(t, { plan: 'pro', changes: { governor: { enabled: false } } })
  const res = await gw.ask('complete', 'hello')
  t.equal(res.status, 403)
  t.match(res.body, { error: 'API key lacks required permissions', message: /Governor is turned off/ })
})

t.test('bad governorMetadata gets 400 naming the problem', async (t) => {
  const gw = await governedGateway(t)
  const wrongAction = await gw.ask('complete', 'hi', { governorMetadata: { actionType: 'firing', senderId: 'a' } })
  t.equal(wrongAction.status, 400)
  t.match(wrongAction.body.error, /actionType must be one of customer_support/)
  const noSender = await gw.ask('complete', 'hi', { governorMetadata: { actionType: 'other' } })
  t.equal(noSender.status, 400)
  t.match(noSender.body, { issues: [{ path: 'governorMetadata.senderId' }] })
  const extra = await gw.ask('complete', 'hi', { governorMetadata: { ...metadata, mood: 'happy' } })
  t.equal(extra.status, 400)
})

t.test('a full worker pool queue answers 503 with retry-after, and the gateway recovers', async (t) => {
  const gw = await governedGateway(t, { overrides: { pool: { maxThreads: 1, maxQueue: 1, idleTimeoutMs: 60_000 } } })
  // Long texts go to the pool in up to four batches of 32 KB or more; one thread and one queue
  // slot take two, the third finds the queue full.
  const long = (n: number) => ({ role: 'user', content: `${'Our shipment is late. '.repeat(1600)} ${n}` })
  const res = await call(`${gw.url}/api/ai/complete`, { key: gw.sk, body: { messages: [1, 2, 3, 4].map(long), governorMetadata: metadata } })
  t.equal(res.status, 503)
  t.equal(res.headers['retry-after'], '1')
  t.match(res.body, { error: 'Service overloaded', code: 'overloaded' })
  t.same(governorHeadersOf(res), {}, 'no verdict was given')
  const next = await gw.ask('complete', 'A short question')
  t.equal(next.status, 200)
})

t.test('/metrics counts verdicts by risk level and decision and times the scans', async (t) => {
  const gw = await governedGateway(t, { changes: { governor: { strictMode: true } } })
  await gw.ask('complete', 'hello')
  await gw.ask('complete', 'hello')
  await gw.ask('complete', `key ${SENSITIVE.secret}`)
  const metrics = await call(`${gw.url}/metrics`)
  t.match(metrics.body, /tollgate_governor_verdicts_total\{risk_level="low",decision="approved"\} 2/)
  t.match(metrics.body, /tollgate_governor_verdicts_total\{risk_level="high",decision="blocked"\} 1/)
  // The first request and its answer are scanned; the repeat (a cache hit) reuses both memoized
  // verdicts; the blocked request is scanned and never answered.
  t.match(metrics.body, /tollgate_governor_scan_seconds_count\{where="inline"\} 3/)
  t.notMatch(metrics.body, new RegExp(gw.projectId))
})
