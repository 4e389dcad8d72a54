// Deliveries are durable: their schedule lives in the store, so a new gateway on the same data
// directory carries on where the last one stopped, and an event committed while no gateway runs
// is delivered by the next one to start.
import t from 'tap'
import { createOutbox } from '../../../proxy/stores/events/lmdb.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { CLOCK_START, inStore, register, seedWebhookProject, startWebhookGateway, type WebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { until } from '../../helpers/until.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

const MINUTE = 60_000

async function onlyDelivery(gw: WebhookGateway, webhookId: string): Promise<any> {
  return (await gw.api(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries[0]
}

async function recorded(gw: WebhookGateway, webhookId: string, attempts: number): Promise<any> {
  let delivery: any
  await until(async () => {
    delivery = await onlyDelivery(gw, webhookId)
    return delivery?.attempts === attempts && delivery.next_attempt !== null
  }, `attempt ${attempts} to be recorded`)
  return delivery
}

t.test("a gateway started on the same store resumes a delivery's retry schedule where the stopped one left it", async (t) => {
  const failing = await startReceiver(t, () => ({ status: 500 }))
  const dataDir = freshDataDir(t)
  const project = await seedWebhookProject(dataDir)
  const clock = manualClock(CLOCK_START)
  const first = clock.now()
  const before = await startWebhookGateway(t, { dataDir, clock }, project)
  const id = await register(before, failing.url)
  const event = await before.emit('violation.detected', project.projectId, { violation_id: 'vio_1', type: 'PRIVACY', severity: 'CRITICAL', description: 'd' })
  await recorded(before, id, 1)
  clock.advance(MINUTE)
  await recorded(before, id, 2)
  await before.gateway.close()

  const after = await startWebhookGateway(t, { dataDir, clock }, project)
  t.match(
    await onlyDelivery(after, id),
    { status: 'pending', attempts: 2, next_attempt: new Date(first + 5 * MINUTE).toISOString() },
    'the schedule survived the restart',
  )
  clock.set(first + 5 * MINUTE)
  await until(() => failing.received.length === 3, 'the third attempt, from the new gateway')
  t.match(await recorded(after, id, 3), { next_attempt: new Date(first + 15 * MINUTE).toISOString() })
  t.ok(
    failing.received.every((d) => d.headers['x-gateway-event-id'] === event.id),
    'the same event id on every attempt',
  )
})

t.test('an event committed while no gateway runs is delivered by the next one to start', async (t) => {
  const receiver = await startReceiver(t)
  const dataDir = freshDataDir(t)
  const project = await seedWebhookProject(dataDir)
  const clock = manualClock(CLOCK_START)
  const first = await startWebhookGateway(t, { dataDir, clock }, project)
  await register(first, receiver.url)
  await first.gateway.close()
  // The change and its event committed, then the process died before any worker took it.
  const event = await inStore(dataDir, (store) => createOutbox(store.root, clock).emit('case.updated', project.projectId, { case_id: 'case_1' }))
  await startWebhookGateway(t, { dataDir, clock }, project)
  await until(() => receiver.received.length === 1, 'the delivery')
  t.equal(receiver.received[0]!.body.id, event.id)
})

t.test('an attempt cut short by shutdown is given back uncounted and sent again after the restart', async (t) => {
  let hold = true
  const receiver = await startReceiver(t, () => (hold ? { status: 200, delayMs: 30_000 } : { status: 200 }))
  const dataDir = freshDataDir(t)
  const project = await seedWebhookProject(dataDir)
  const clock = manualClock(CLOCK_START)
  const first = await startWebhookGateway(t, { dataDir, clock }, project)
  const id = await register(first, receiver.url)
  const event = await first.emit('case.resolved', project.projectId)
  await until(() => receiver.received.length === 1, 'the attempt to reach the receiver')
  await first.gateway.close()
  hold = false

  const second = await startWebhookGateway(t, { dataDir, clock }, project)
  await until(() => receiver.received.length === 2, 'the delivery after the restart')
  await until(async () => (await onlyDelivery(second, id)).status === 'succeeded', 'the delivery to succeed')
  t.match(await onlyDelivery(second, id), { attempts: 1, response_code: 200 }, 'the interrupted attempt was not counted')
  t.equal(receiver.received[1]!.headers['x-gateway-event-id'], event.id, 'the repeat carries the same event id, so the receiver can deduplicate')
})
