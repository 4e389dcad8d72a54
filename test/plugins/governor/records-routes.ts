// The compliance records endpoints, as a suite run on each store (records-routes.test.ts on LMDB,
// records-routes-postgres.test.ts on PostgreSQL): project keys only, the caller's project only,
// cursor pages, filters, and the state transitions of alerts, cases and violations.
import type { Test } from 'tap'
import { call } from '../../helpers/http.ts'
import { governedGateway, SENSITIVE, type GovernedGatewayOptions } from './fixtures.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const START = Date.UTC(2025, 0, 15, 9, 0, 0)
const HOUR = 3_600_000

/** Where a test's gateways keep their records: a fresh LMDB directory each, or one fresh database they share. */
export type Where = (t: Test) => Promise<GovernedGatewayOptions>

export function recordsRoutesSuite(t: Test, where: Where) {
  t.test('records are read with a project key; a gateway key gets 403 and no key 401', async (t) => {
    const gw = await governedGateway(t, await where(t))
    const paths = ['violations', 'alerts', 'cases', 'policies', 'models', 'score']
    for (const path of paths) {
      t.equal((await call(`${gw.url}/api/compliance/${path}`, { key: gw.pk })).status, 200, `${path} with pk_`)
      const sk = await call(`${gw.url}/api/compliance/${path}`, { key: gw.sk })
      t.equal(sk.status, 403, `${path} with sk_`)
      t.equal(sk.body.error, 'API key lacks required permissions')
      t.equal((await call(`${gw.url}/api/compliance/${path}`)).status, 401, `${path} without a key`)
    }
  })

  t.test("another project's records are not found, whatever the operation", async (t) => {
    const store = await where(t)
    const gw = await governedGateway(t, store)
    const stranger = await governedGateway(t, store)
    const res = await gw.ask('complete', `Use ${SENSITIVE.secret} now`)
    const auditId = res.headers['x-governor-audit-id']!
    const [violation] = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
    const [alert] = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
    const [model] = (await call(`${gw.url}/api/compliance/models`, { key: gw.pk })).body.data
    const key = stranger.pk
    const url = stranger.url
    t.equal((await call(`${url}/api/compliance/violations/${violation.id}`, { key })).status, 404)
    t.equal((await call(`${url}/api/compliance/violations/${violation.id}/resolve`, { key, method: 'POST' })).status, 404)
    t.equal((await call(`${url}/api/compliance/alerts/${alert.id}/acknowledge`, { key, method: 'POST' })).status, 404)
    t.equal((await call(`${url}/api/compliance/models/${model.id}`, { key, method: 'PATCH', body: { approvalStatus: 'approved' } })).status, 404)
    t.equal((await call(`${url}/api/compliance/audit/${auditId}`, { key })).status, 404)
    const foreignCase = await call(`${url}/api/compliance/cases`, { key, body: { title: 'theirs', violationIds: [violation.id] } })
    t.equal(foreignCase.status, 400)
    t.match(foreignCase.body.message, `No violation ${violation.id} in this project.`)
    t.same((await call(`${url}/api/compliance/violations`, { key })).body.data, [])
    t.equal((await call(`${gw.url}/api/compliance/violations/${violation.id}`, { key: gw.pk })).status, 200, 'the owner still reads it')
  })

  t.test('lists are newest first and paged with an opaque cursor until nextCursor is null', async (t) => {
    const clock = manualClock(START)
    const gw = await governedGateway(t, { ...(await where(t)), clock })
    for (let i = 0; i < 5; i++) {
      await gw.ask('complete', `Write to ${i}.${SENSITIVE.email}`)
      clock.advance(1000)
    }
    const all = (await call(`${gw.url}/api/compliance/violations?limit=200`, { key: gw.pk })).body.data.map((v: { id: string }) => v.id)
    t.equal(all.length, 5)
    t.same(all, [...all].sort().reverse(), 'newest first')
    const seen: string[] = []
    let cursor: string | null = null
    const pages: number[] = []
    do {
      const query: string = cursor === null ? 'limit=2' : `limit=2&cursor=${cursor}`
      const page = await call(`${gw.url}/api/compliance/violations?${query}`, { key: gw.pk })
      t.equal(page.status, 200)
      pages.push(page.body.data.length)
      seen.push(...page.body.data.map((v: { id: string }) => v.id))
      cursor = page.body.nextCursor
      if (cursor !== null) t.notMatch(cursor, /vio_/, 'the cursor is opaque')
    } while (cursor !== null)
    t.same(pages, [2, 2, 1])
    t.same(seen, all)
    const bad = await call(`${gw.url}/api/compliance/violations?cursor=bm90LWEtY3Vyc29y`, { key: gw.pk })
    t.equal(bad.status, 400)
    t.equal((await call(`${gw.url}/api/compliance/violations?limit=0`, { key: gw.pk })).status, 400)
    t.equal((await call(`${gw.url}/api/compliance/violations?colour=red`, { key: gw.pk })).status, 400, 'unknown filters are refused, not ignored')
  })

  t.test('lists filter by status, type, severity and a time window', async (t) => {
    const clock = manualClock(START)
    const gw = await governedGateway(t, { ...(await where(t)), clock })
    await gw.ask('complete', `Write to ${SENSITIVE.email}`)
    clock.advance(HOUR)
    await gw.ask('complete', `Log in with ${SENSITIVE.secret}`)
    clock.advance(HOUR)
    await gw.ask('complete', `Charge ${SENSITIVE.card}`)
    const list = async (query: string) =>
      (await call(`${gw.url}/api/compliance/violations?${query}`, { key: gw.pk })).body.data.map((v: { category: string }) => v.category)
    t.same(await list('type=SECURITY'), ['SECRET'])
    t.same(await list('severity=MEDIUM'), ['EMAIL_ADDRESS'])
    t.same(await list('type=PRIVACY'), ['CREDIT_CARD', 'EMAIL_ADDRESS'])
    t.same(await list(`since=${new Date(START + HOUR).toISOString()}`), ['CREDIT_CARD', 'SECRET'])
    t.same(await list(`until=${new Date(START + HOUR).toISOString()}`), ['SECRET', 'EMAIL_ADDRESS'], 'until is inclusive')
    t.same(await list(`since=${new Date(START + 1).toISOString()}&until=${new Date(START + HOUR + 1).toISOString()}`), ['SECRET'])
    const [secret] = (await call(`${gw.url}/api/compliance/violations?type=SECURITY`, { key: gw.pk })).body.data
    await call(`${gw.url}/api/compliance/violations/${secret.id}/resolve`, { key: gw.pk, method: 'POST' })
    t.same(await list('status=resolved'), ['SECRET'])
    t.same(await list('status=open'), ['CREDIT_CARD', 'EMAIL_ADDRESS'])
    t.equal((await call(`${gw.url}/api/compliance/violations?severity=SEVERE`, { key: gw.pk })).status, 400)
    t.equal((await call(`${gw.url}/api/compliance/violations?since=yesterday`, { key: gw.pk })).status, 400)
    const alerts = await call(`${gw.url}/api/compliance/alerts?type=high_risk_request&severity=HIGH&status=open`, { key: gw.pk })
    t.same(
      alerts.body.data.map((a: { title: string }) => a.title),
      ['High-risk request'],
    )
  })

  t.test('alerts move from open to acknowledged to resolved; any other move is 409', async (t) => {
    const gw = await governedGateway(t, await where(t))
    await gw.ask('complete', `Log in with ${SENSITIVE.secret}`)
    await gw.ask('complete', `Deploy with ${SENSITIVE.secret}`)
    const [second, first] = (await call(`${gw.url}/api/compliance/alerts`, { key: gw.pk })).body.data
    const post = (id: string, action: string) => call(`${gw.url}/api/compliance/alerts/${id}/${action}`, { key: gw.pk, method: 'POST' })
    const acknowledged = await post(first.id, 'acknowledge')
    t.equal(acknowledged.status, 200)
    t.match(acknowledged.body, { status: 'acknowledged', acknowledgedAt: String, resolvedAt: null })
    const twice = await post(first.id, 'acknowledge')
    t.equal(twice.status, 409)
    t.match(twice.body, { error: 'Conflict', message: `The alert ${first.id} is acknowledged; it cannot become acknowledged.` })
    t.match((await post(first.id, 'resolve')).body, { status: 'resolved', resolvedAt: String })
    t.equal((await post(first.id, 'resolve')).status, 409)
    t.equal((await post(first.id, 'acknowledge')).status, 409)
    t.match((await post(second.id, 'resolve')).body, { status: 'resolved', acknowledgedAt: null }, 'an open alert may be resolved directly')
    t.equal((await post('alt_01jz0000000000000000000000', 'resolve')).status, 404)
  })

  t.test('cases are opened from violations, investigated with notes, and resolving one resolves its violations', async (t) => {
    const gw = await governedGateway(t, await where(t))
    await gw.ask('complete', `Write to ${SENSITIVE.email} about ${SENSITIVE.card}`)
    const violations = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
    const ids = violations.map((v: { id: string }) => v.id)
    const created = await call(`${gw.url}/api/compliance/cases`, {
      key: gw.pk,
      body: { title: 'Card data sent to support', violationIds: ids, note: 'Opened after the weekly review.' },
    })
    t.equal(created.status, 201)
    t.match(created.body, { id: /^case_/, status: 'open', severity: 'HIGH', violationIds: ids, notes: [{ text: 'Opened after the weekly review.' }] })
    const caseUrl = `${gw.url}/api/compliance/cases/${created.body.id}`
    const investigating = await call(caseUrl, { key: gw.pk, method: 'PATCH', body: { status: 'investigating', note: 'Asked the agent.' } })
    t.match(investigating.body, { status: 'investigating', notes: [{}, { text: 'Asked the agent.' }] })
    t.match((await call(caseUrl, { key: gw.pk, method: 'PATCH', body: { note: 'Agent confirmed.' } })).body, { status: 'investigating', notes: [{}, {}, {}] })
    t.equal((await call(caseUrl, { key: gw.pk, method: 'PATCH', body: {} })).status, 400)
    t.equal((await call(caseUrl, { key: gw.pk, method: 'PATCH', body: { status: 'closed' } })).status, 400)
    const resolved = await call(`${caseUrl}/resolve`, { key: gw.pk, method: 'POST' })
    t.match(resolved.body, { status: 'resolved', resolvedAt: String })
    const after = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
    t.ok(after.every((v: { status: string; caseId: string }) => v.status === 'resolved' && v.caseId === created.body.id))
    t.equal((await call(`${caseUrl}/resolve`, { key: gw.pk, method: 'POST' })).status, 409)
    t.equal((await call(caseUrl, { key: gw.pk, method: 'PATCH', body: { status: 'investigating' } })).status, 409)
    t.match((await call(caseUrl, { key: gw.pk })).body, { status: 'resolved' })
    t.same((await call(`${gw.url}/api/compliance/cases?status=open`, { key: gw.pk })).body.data, [])
    t.equal((await call(`${gw.url}/api/compliance/cases?status=resolved&severity=HIGH`, { key: gw.pk })).body.data.length, 1)
    t.equal((await call(`${gw.url}/api/compliance/cases`, { key: gw.pk, body: { title: 'empty', violationIds: [] } })).status, 400)
  })

  t.test('a violation is resolved once; resolving it again is 409', async (t) => {
    const gw = await governedGateway(t, await where(t))
    await gw.ask('complete', `Write to ${SENSITIVE.email}`)
    const [violation] = (await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data
    const resolve = () => call(`${gw.url}/api/compliance/violations/${violation.id}/resolve`, { key: gw.pk, method: 'POST' })
    t.match((await resolve()).body, { status: 'resolved', resolvedAt: String, caseId: null })
    t.equal((await resolve()).status, 409)
  })

  t.test("policies are the project's custom rules: created, applied to the next request, changed and removed; unsafe regexes are refused", async (t) => {
    const gw = await governedGateway(t, await where(t))
    const policies = `${gw.url}/api/compliance/policies`
    const created = await call(policies, {
      key: gw.pk,
      body: { name: 'Project codename', pattern: '\\bfalcon-\\d+\\b', regex: true, weight: 30, severity: 'HIGH' },
    })
    t.equal(created.status, 201)
    t.match(created.body, { id: /^rule_/, name: 'Project codename', regex: true, weight: 30, severity: 'HIGH' })
    const res = await gw.ask('complete', 'Status of FALCON-7 and falcon-9?')
    t.match(res.headers, { 'x-governor-risk-score': '35', 'x-governor-violations': '1' })
    t.match((await call(`${gw.url}/api/compliance/violations`, { key: gw.pk })).body.data, [
      { type: 'POLICY', severity: 'HIGH', category: created.body.id, count: 2 },
    ])

    const unsafe = await call(policies, { key: gw.pk, body: { name: 'bad', pattern: '(\\w+\\s?)+$', regex: true } })
    t.equal(unsafe.status, 400)
    t.match(unsafe.body.message, /nested quantifiers/)
    const invalid = await call(policies, { key: gw.pk, body: { name: 'bad', pattern: '([a-z', regex: true } })
    t.equal(invalid.status, 400)
    t.equal((await call(policies, { key: gw.pk, body: { name: 'heavy', pattern: 'x', weight: 101 } })).status, 400)
    t.same(
      (await call(policies, { key: gw.pk })).body.data.map((r: { id: string }) => r.id),
      [created.body.id],
      'refused rules were not saved',
    )

    const keyword = await call(policies, { key: gw.pk, body: { name: 'Competitor', pattern: 'Acme Corp' } })
    t.match(keyword.body, { regex: false, weight: 20, severity: 'MEDIUM' }, 'defaults')
    t.same(
      (await call(`${policies}?type=keyword`, { key: gw.pk })).body.data.map((r: { id: string }) => r.id),
      [keyword.body.id],
    )
    const first = await call(`${policies}?limit=1`, { key: gw.pk })
    t.equal(first.body.data[0].id, created.body.id)
    t.same((await call(`${policies}?limit=1&cursor=${first.body.nextCursor}`, { key: gw.pk })).body, { data: [keyword.body], nextCursor: null })

    const changed = await call(`${policies}/${created.body.id}`, { key: gw.pk, method: 'PATCH', body: { weight: 50 } })
    t.match(changed.body, { id: created.body.id, weight: 50, pattern: '\\bfalcon-\\d+\\b' })
    t.equal((await call(`${policies}/${created.body.id}`, { key: gw.pk, method: 'PATCH', body: { pattern: '(a|aa)+' } })).status, 400)
    t.match((await gw.ask('complete', 'And falcon-8?')).headers, { 'x-governor-risk-score': '55' }, 'the changed weight applies at once')
    t.same((await call(`${policies}/${created.body.id}`, { key: gw.pk, method: 'DELETE' })).body, { id: created.body.id, deleted: true })
    t.equal((await call(`${policies}/${created.body.id}`, { key: gw.pk })).status, 404)
    t.match((await gw.ask('complete', 'And falcon-10?')).headers, { 'x-governor-risk-score': '5' })
  })

  t.test('the models registry lists each model on its first governed use and is editable', async (t) => {
    const gw = await governedGateway(t, await where(t))
    await gw.ask('complete', 'one')
    await gw.ask('complete', 'two')
    await gw.ask('complete', 'three', { quality: 'frontier' })
    const models = `${gw.url}/api/compliance/models`
    const listed = (await call(models, { key: gw.pk })).body.data
    t.same(
      listed.map((m: { provider: string; model: string }) => `${m.provider}/${m.model}`),
      ['local/gpt-4o', 'local/gpt-4o-mini'],
    )
    t.match(listed[0], { source: 'auto', riskClassification: 'unclassified', approvalStatus: 'pending' })
    const approved = await call(`${models}/${listed[0].id}`, {
      key: gw.pk,
      method: 'PATCH',
      body: { approvalStatus: 'approved', riskClassification: 'medium', notes: 'Reviewed.' },
    })
    t.match(approved.body, { approvalStatus: 'approved', riskClassification: 'medium', notes: 'Reviewed.' })
    t.same(
      (await call(`${models}?status=approved`, { key: gw.pk })).body.data.map((m: { id: string }) => m.id),
      [listed[0].id],
    )
    const manual = await call(models, {
      key: gw.pk,
      body: { provider: 'anthropic', model: 'claude-3-opus-20240229', approvalStatus: 'rejected', riskClassification: 'high' },
    })
    t.equal(manual.status, 201)
    t.match(manual.body, { source: 'manual', approvalStatus: 'rejected' })
    t.equal((await call(models, { key: gw.pk, body: { provider: 'local', model: 'gpt-4o' } })).status, 409)
    t.same((await call(`${models}/${manual.body.id}`, { key: gw.pk, method: 'DELETE' })).body, { id: manual.body.id, deleted: true })
    t.equal((await call(`${models}/${manual.body.id}`, { key: gw.pk })).status, 404)
    t.equal((await call(`${models}/${listed[1].id}`, { key: gw.pk, method: 'PATCH', body: {} })).status, 400)
  })

  t.test('a model rejected in the registry is refused for governed requests until it is approved again', async (t) => {
    const gw = await governedGateway(t, await where(t))
    t.equal((await gw.ask('complete', 'first use registers the model')).status, 200)
    const [model] = (await call(`${gw.url}/api/compliance/models`, { key: gw.pk })).body.data
    await call(`${gw.url}/api/compliance/models/${model.id}`, { key: gw.pk, method: 'PATCH', body: { approvalStatus: 'rejected' } })

    const refused = await gw.ask('complete', 'a harmless question')
    t.equal(refused.status, 403)
    t.strictSame(refused.body, {
      error: 'Request blocked by Governor',
      message: `The model local/gpt-4o-mini is rejected in this project's models registry; approve it there or send the request to another model. The audit record ${refused.body.auditId} is kept.`,
      code: 'governor_blocked',
      auditId: refused.body.auditId,
      riskLevel: 'low',
      violations: [],
    })
    t.match((await call(`${gw.url}/api/compliance/audit/${refused.body.auditId}`, { key: gw.pk })).body, { kind: 'request', decision: 'blocked' })
    t.equal((await gw.ask('chat', 'a harmless question')).status, 403, 'streams are refused before they start')
    t.equal((await gw.ask('complete', 'another model is not affected', { quality: 'frontier' })).status, 200)

    await call(`${gw.url}/api/compliance/models/${model.id}`, { key: gw.pk, method: 'PATCH', body: { approvalStatus: 'approved' } })
    t.equal((await gw.ask('complete', 'a harmless question')).status, 200)
  })

  t.test('the compliance score subtracts open violations of the period by severity', async (t) => {
    const clock = manualClock(START)
    const gw = await governedGateway(t, { ...(await where(t)), clock })
    const score = async (period = 'month') => (await call(`${gw.url}/api/compliance/score?period=${period}`, { key: gw.pk })).body
    t.match(await score(), { score: 100, totalViolations: 0 })
    await gw.ask('complete', `Write to ${SENSITIVE.email}`)
    clock.advance(2 * 24 * HOUR)
    await gw.ask('complete', `Log in with ${SENSITIVE.secret}`)
    t.match(await score(), { score: 100 - 3 - 20, openViolations: { MEDIUM: 1, CRITICAL: 1 }, totalViolations: 2 })
    t.match(await score('day'), { score: 80, totalViolations: 1, period: { name: 'day', end: new Date(START + 48 * HOUR).toISOString() } })
    const [secret] = (await call(`${gw.url}/api/compliance/violations?type=SECURITY`, { key: gw.pk })).body.data
    await call(`${gw.url}/api/compliance/violations/${secret.id}/resolve`, { key: gw.pk, method: 'POST' })
    t.match(await score(), { score: 97, openViolations: { CRITICAL: 0 }, totalViolations: 2 })
    t.equal((await call(`${gw.url}/api/compliance/score?period=year`, { key: gw.pk })).status, 400)
  })
}
