// Several processes on one store: the outbox is emptied in the same transaction that creates the
// deliveries, and a delivery is claimed in a transaction before it is sent, so competing workers
// never create or send one twice. The only repeat is by design: an attempt cut by a crash is sent
// again once its claim runs out, on LMDB by a process on the same host, on PostgreSQL by any gateway.
import t, { type Test } from 'tap'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { openDatabase } from '../../../proxy/stores/database.ts'
import { createOutbox } from '../../../proxy/stores/events/lmdb.ts'
import { openSharedEvents } from '../../../proxy/stores/events/postgres.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import type { DeliveryRecord } from '../../../plugins/webhooks/store/records.ts'
import { call } from '../../helpers/http.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { inStore, seedWebhookProject, SECRET, startWebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { until } from '../../helpers/until.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const GATEWAY_PROCESS = fileURLToPath(new URL('./fixtures/gateway-process.ts', import.meta.url))

const launch = (t: Test, dataDir: string, env: NodeJS.ProcessEnv = process.env) => spawnGateway(t, [GATEWAY_PROCESS, dataDir], env)

async function stop(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM')
  await once(child, 'exit')
}

t.test('two processes on one store create exactly one delivery per event and send each once', async (t) => {
  const receiver = await startReceiver(t)
  const dataDir = freshDataDir(t)
  const project = await seedWebhookProject(dataDir)
  const [first, second] = await Promise.all([launch(t, dataDir), launch(t, dataDir)])
  const registered = await call(`${first!.url}/api/webhooks`, { key: project.sk, body: { url: receiver.url, events: ['*'], secret: SECRET } })
  t.equal(registered.status, 201)

  // This test process emits as a third process would; both gateways find the events by polling.
  const store = openStore(dataDir)
  const outbox = createOutbox(store.root, { now: () => Date.now() })
  const emitted: string[] = []
  for (let batch = 0; batch < 20; batch++) {
    await store.root.transaction(() => {
      for (let i = 0; i < 10; i++) emitted.push(outbox.emit('case.updated', project.projectId, { batch, i }).id)
    })
    await new Promise((resolve) => setTimeout(resolve, 3))
  }
  await store.close()
  await until(() => receiver.received.length >= emitted.length, `${emitted.length} deliveries`, 15_000)

  const sentBy = () =>
    Promise.all(
      [first!, second!].map(async ({ url }) =>
        Number(/^tollgate_webhook_deliveries_total\{outcome="succeeded"\} (\d+)$/m.exec((await call(`${url}/metrics`)).body)?.[1] ?? 0),
      ),
    )
  // A process counts a send once it has read the answer and settled the delivery, a moment after
  // the receiver has the request.
  let perProcess = await sentBy()
  await until(async () => (perProcess = await sentBy()).reduce((a, b) => a + b) >= emitted.length, 'both processes to count their sends')
  t.comment(`sent by each process: ${perProcess.join(' and ')}`)
  await Promise.all([stop(first!.child), stop(second!.child)])

  const ids = receiver.received.map((d) => d.body.id as string)
  t.equal(ids.length, emitted.length, 'no event was sent twice')
  t.same([...new Set(ids)].sort(), [...emitted].sort(), 'every event arrived')
  const stored = await inStore(dataDir, (handle) => ({
    deliveries: [...handle.forPlugin('webhooks').open<DeliveryRecord>('deliveries').getRange()].map(({ value }) => value),
    outbox: createOutbox(handle.root, { now: () => Date.now() }).pending(10),
  }))
  t.equal(stored.deliveries.length, emitted.length, 'one delivery record per event')
  t.ok(
    stored.deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1),
    'each sent once, successfully',
  )
  t.same(stored.outbox, [], 'the outbox is empty')
  t.equal(perProcess[0]! + perProcess[1]!, emitted.length, "the processes' sends add up to one per event")
})

t.test('an attempt cut short by a crash is sent again, with the same event id, once its claim runs out', async (t) => {
  let hold = true
  const receiver = await startReceiver(t, () => (hold ? { status: 200, delayMs: 60_000 } : { status: 200 }))
  const dataDir = freshDataDir(t)
  const project = await seedWebhookProject(dataDir)
  const crashing = await launch(t, dataDir)
  const registered = await call(`${crashing.url}/api/webhooks`, { key: project.sk, body: { url: receiver.url, events: ['*'], secret: SECRET } })
  const webhookId = registered.body.id as string
  const event = await inStore(dataDir, (store) =>
    createOutbox(store.root, { now: () => Date.now() }).emit('alert.resolved', project.projectId, { alert_id: 'alt_1' }),
  )
  await until(() => receiver.received.length === 1, 'the attempt to reach the receiver')
  crashing.child.kill('SIGKILL')
  await once(crashing.child, 'exit')
  hold = false

  // Default timeout 10 s plus the 60 s margin: the claim has run out ten minutes on.
  const clock = manualClock(Date.now() + 10 * 60_000)
  const survivor = await startWebhookGateway(t, { dataDir, clock }, project)
  await until(() => receiver.received.length === 2, 'the repeat after the claim ran out')
  t.equal(receiver.received[1]!.headers['x-gateway-event-id'], event.id)
  await until(async () => (await survivor.api(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries[0]?.status === 'succeeded', 'the delivery to succeed')
  t.match(
    (await survivor.api(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries,
    [{ attempts: 2, status: 'succeeded' }],
    'the crashed attempt counts as one',
  )
})

t.test(
  'on PostgreSQL, an attempt cut short by a crash is sent again by another gateway, with the same event id, once its claim runs out',
  { skip: POSTGRES_MISSING },
  async (t) => {
    const server = await startPostgres(t)
    const databaseUrl = await server.freshDatabase(t)
    let hold = true
    const receiver = await startReceiver(t, () => (hold ? { status: 200, delayMs: 60_000 } : { status: 200 }))
    const project = await seedWebhookProject(freshDataDir(t), 1000, databaseUrl)
    const crashing = await launch(t, freshDataDir(t), { ...process.env, DATABASE_URL: databaseUrl })
    const registered = await call(`${crashing.url}/api/webhooks`, { key: project.sk, body: { url: receiver.url, events: ['*'], secret: SECRET } })
    const webhookId = registered.body.id as string
    // This test process emits as a third gateway on the database would.
    const log = pino({ level: 'silent' })
    const database = openDatabase(databaseUrl, log, { maxConnections: 1 })
    const core = database.forPlugin('core')
    const outbox = await openSharedEvents(core, { now: () => Date.now() }, log)
    const event = await core.transaction((sql) => outbox.emit(sql, 'alert.resolved', project.projectId, { alert_id: 'alt_1' }))
    await outbox.close()
    await database.close()
    await until(() => receiver.received.length === 1, 'the attempt to reach the receiver')
    crashing.child.kill('SIGKILL')
    await once(crashing.child, 'exit')
    hold = false

    // Default timeout 10 s plus the 60 s margin: the claim has run out ten minutes on.
    const clock = manualClock(Date.now() + 10 * 60_000)
    const survivor = await startWebhookGateway(t, { clock, databaseUrl }, project)
    await until(() => receiver.received.length === 2, 'the repeat after the claim ran out')
    t.equal(receiver.received[1]!.headers['x-gateway-event-id'], event.id)
    await until(async () => (await survivor.api(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries[0]?.status === 'succeeded', 'the delivery to succeed')
    t.match(
      (await survivor.api(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries,
      [{ attempts: 2, status: 'succeeded' }],
      'the crashed attempt counts as one',
    )
  },
)
