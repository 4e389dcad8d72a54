// The registration endpoints through the real gateway: what they answer, who may call them, and
// what they refuse. The secret is given once and never shown again.
import t from 'tap'
import { inStore, register, seedWebhookProject, SECRET, startWebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'

t.test('registering answers 201 with id, url, events, active and created, and no endpoint ever shows the secret', async (t) => {
  const receiver = await startReceiver(t)
  const gw = await startWebhookGateway(t)
  const created = await gw.api('/api/webhooks', {
    body: { url: receiver.url, events: ['usage.limit_exceeded', 'alert.created', 'alert.created'], secret: SECRET },
  })
  t.equal(created.status, 201)
  t.same(Object.keys(created.body).sort(), ['active', 'created', 'events', 'id', 'url'])
  t.match(created.body, {
    id: /^wh_[0-9a-z]{26}$/,
    url: receiver.url,
    events: ['usage.limit_exceeded', 'alert.created'],
    active: true,
    created: '2025-06-02T09:00:00.000Z',
  })
  const id = created.body.id as string

  const answers = [
    created,
    await gw.api('/api/webhooks'),
    await gw.api(`/api/webhooks/${id}`, { method: 'PATCH', body: { secret: 'another-secret-0123456789' } }),
    await gw.api('/api/webhooks/test', { body: { webhook_id: id, event_type: 'alert.created' } }),
    await gw.api(`/api/webhooks/${id}/deliveries`),
  ]
  for (const answer of answers) {
    const text = JSON.stringify(answer.body)
    t.notOk(text.includes(SECRET) || text.includes('another-secret'), 'no secret in the answer')
  }
  t.same(
    answers[1]!.body.webhooks.map((w: { id: string }) => w.id),
    [id],
    'the list holds the webhook',
  )

  await gw.gateway.close()
  const raw = await inStore(gw.dataDir, (store) => JSON.stringify([...store.forPlugin('webhooks').open('hooks').getRange()]))
  t.notOk(raw.includes('another-secret'), 'the stored record holds the secret sealed, not in clear')
})

t.test('both sk_ and pk_ keys register, list, change and delete webhooks of their project', async (t) => {
  const receiver = await startReceiver(t)
  const gw = await startWebhookGateway(t)
  const byPk = await gw.api('/api/webhooks', { key: gw.pk, body: { url: receiver.url, events: ['*'], secret: SECRET } })
  t.equal(byPk.status, 201)
  const id = byPk.body.id as string
  t.equal((await gw.api('/api/webhooks', { key: gw.sk })).body.webhooks.length, 1, 'sk_ sees what pk_ registered')
  const patched = await gw.api(`/api/webhooks/${id}`, { key: gw.pk, method: 'PATCH', body: { events: ['case.created'], active: false } })
  t.equal(patched.status, 200)
  t.match(patched.body, { id, events: ['case.created'], active: false })
  const deleted = await gw.api(`/api/webhooks/${id}`, { key: gw.sk, method: 'DELETE' })
  t.same(deleted.body, { id, deleted: true })
  t.equal((await gw.api(`/api/webhooks/${id}`, { method: 'DELETE' })).status, 404, 'a second delete finds nothing')
  t.same((await gw.api('/api/webhooks', { key: gw.pk })).body.webhooks, [])
})

t.test("another project's webhook is 404 on every endpoint and absent from the list", async (t) => {
  const receiver = await startReceiver(t)
  const dataDir = freshDataDir(t)
  const other = await seedWebhookProject(dataDir)
  const gw = await startWebhookGateway(t, { dataDir })
  const theirs = await gw.api('/api/webhooks', { key: other.sk, body: { url: receiver.url, events: ['*'], secret: SECRET } })
  const id = theirs.body.id as string
  const tried = [
    await gw.api(`/api/webhooks/${id}`, { method: 'PATCH', body: { active: false } }),
    await gw.api(`/api/webhooks/${id}`, { method: 'DELETE' }),
    await gw.api(`/api/webhooks/${id}/deliveries`),
    await gw.api(`/api/webhooks/${id}/deliveries/dlv_01jwqxwzm0yw7k31tetym0jehk/redeliver`, { method: 'POST' }),
    await gw.api('/api/webhooks/test', { body: { webhook_id: id, event_type: 'alert.created' } }),
  ]
  for (const res of tried) {
    t.equal(res.status, 404)
    t.same(res.body, { error: 'Not found', message: `No webhook ${id} in this project.`, code: 'not_found' })
  }
  t.same((await gw.api('/api/webhooks')).body.webhooks, [])
  t.equal(receiver.received.length, 0, 'no test event reached their receiver')
  t.match((await gw.api('/api/webhooks', { key: other.sk })).body.webhooks, [{ id, active: true }], 'their webhook is untouched')
})

t.test('invalid bodies are 400 with a message naming the field and the rule', async (t) => {
  const receiver = await startReceiver(t)
  const gw = await startWebhookGateway(t)
  const id = await register(gw, receiver.url)
  const cases: Array<[path: string, method: 'POST' | 'PATCH', body: unknown, error: string]> = [
    ['/api/webhooks', 'POST', { events: ['*'], secret: SECRET }, 'Invalid request: url is required'],
    ['/api/webhooks', 'POST', { url: 42, events: ['*'], secret: SECRET }, 'Invalid request: url must be a string'],
    ['/api/webhooks', 'POST', { url: 'not a url', events: ['*'], secret: SECRET }, 'Invalid request: url must be an absolute URL'],
    ['/api/webhooks', 'POST', { url: 'ftp://127.0.0.1/x', events: ['*'], secret: SECRET }, 'Invalid request: url must use https'],
    ['/api/webhooks', 'POST', { url: 'https://user:pw@127.0.0.1/x', events: ['*'], secret: SECRET }, 'Invalid request: url must not contain credentials'],
    ['/api/webhooks', 'POST', { url: receiver.url, secret: SECRET }, 'Invalid request: events is required'],
    ['/api/webhooks', 'POST', { url: receiver.url, events: [], secret: SECRET }, 'Invalid request: events must list at least one event kind, or *'],
    [
      '/api/webhooks',
      'POST',
      { url: receiver.url, events: ['usage.exceeded'], secret: SECRET },
      'Invalid request: events.0: each event must be one of alert.created, alert.acknowledged, alert.resolved, case.created, case.updated, case.resolved, violation.detected, violation.resolved, compliance.score_changed, usage.threshold_reached, usage.limit_exceeded, or *',
    ],
    ['/api/webhooks', 'POST', { url: receiver.url, events: ['*'] }, 'Invalid request: secret is required'],
    ['/api/webhooks', 'POST', { url: receiver.url, events: ['*'], secret: 'short' }, 'Invalid request: secret must hold at least 16 characters'],
    ['/api/webhooks', 'POST', { url: receiver.url, events: ['*'], secret: SECRET, active: true }, 'Invalid request: Unrecognized key: "active"'],
    [`/api/webhooks/${id}`, 'PATCH', {}, 'Invalid request: send at least one of url, events, secret, active'],
    [`/api/webhooks/${id}`, 'PATCH', { active: 'yes' }, 'Invalid request: active must be true or false'],
    [`/api/webhooks/${id}`, 'PATCH', { secret: 'x'.repeat(15) }, 'Invalid request: secret must hold at least 16 characters'],
    [
      '/api/webhooks/test',
      'POST',
      { webhook_id: id, event_type: '*' },
      'Invalid request: event_type must be one of alert.created, alert.acknowledged, alert.resolved, case.created, case.updated, case.resolved, violation.detected, violation.resolved, compliance.score_changed, usage.threshold_reached, usage.limit_exceeded',
    ],
    ['/api/webhooks/test', 'POST', { event_type: 'alert.created' }, 'Invalid request: webhook_id is required'],
  ]
  for (const [path, method, body, error] of cases) {
    const res = await gw.api(path, { method, body })
    t.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`)
    t.equal(res.body.error, error)
    t.equal(res.body.code, 'invalid_request')
  }
  const limit = await gw.api(`/api/webhooks/${id}/deliveries?limit=0`)
  t.equal(limit.status, 400)
  t.equal(limit.body.error, 'Invalid request: limit must be at least 1')
  t.match((await gw.api('/api/webhooks')).body.webhooks, [{ id, events: ['*'], active: true }], 'nothing changed')
})
