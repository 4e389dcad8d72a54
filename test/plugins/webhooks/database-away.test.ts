// PostgreSQL away: the webhook endpoints answer 503 naming it at once, the delivery worker keeps
// running (it logs and tries again on its next pass), and once the database is back, events are
// delivered again without a restart.
import t from 'tap'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { register, startWebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { until } from '../../helpers/until.ts'

t.test('with PostgreSQL away the webhook endpoints answer 503 and the worker survives; back, deliveries resume', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  const receiver = await startReceiver(t)
  const gw = await startWebhookGateway(t, { databaseUrl: await server.freshDatabase(t) })
  const id = await register(gw, receiver.url)
  await gw.emit('case.created', gw.projectId)
  await until(() => receiver.received.length === 1, 'the first delivery')

  await server.stop()
  const started = performance.now()
  const answer = await gw.api('/api/webhooks')
  t.equal(answer.status, 503)
  t.match(answer.body, { code: 'dependency_unavailable', dependency: 'postgres' })
  t.equal(answer.headers['retry-after'], '1')
  t.ok(performance.now() - started < 5_000, 'within the connect timeout')
  // The worker's passes (every 20 ms here) fail meanwhile, as the requests do.
  await until(async () => /tollgate_webhook_pending/.test((await gw.api('/metrics')).body), 'a scrape while the database is away')
  t.equal((await gw.api('/api/webhooks')).status, 503)

  await server.start()
  await until(async () => (await gw.api('/api/webhooks')).status === 200, 'the endpoints to answer again')
  const event = await gw.emit('case.updated', gw.projectId)
  await until(() => receiver.received.length === 2, 'a delivery after the database came back')
  t.equal(receiver.received[1]!.body.id, event.id)
  t.match((await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries[0], { event_id: event.id })
})
