// Sends run concurrently within bounds: a slow receiver holds at most its per-webhook share of
// the senders, the total stays under `concurrency`, and an attempt without an answer in time
// fails and is retried.
import t from 'tap'
import { register, startWebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { onBothStores } from './fixtures/stores.ts'
import { until } from '../../helpers/until.ts'

// Longer than any test here runs: these receivers answer only when the test is over.
const NEVER_MS = 60_000

onBothStores(t, (t, place) => {
  t.test('a slow receiver holds at most its per-webhook share of the senders and does not delay other webhooks', async (t) => {
    const slow = await startReceiver(t, () => ({ status: 200, delayMs: NEVER_MS }))
    const fast = await startReceiver(t)
    const gw = await startWebhookGateway(t, { ...(await place(t)), webhooks: { concurrency: 4, perWebhookConcurrency: 2 } })
    await register(gw, slow.url, ['case.created'])
    await register(gw, fast.url, ['alert.created'])
    for (let i = 0; i < 5; i++) await gw.emit('case.created', gw.projectId)
    await until(() => slow.received.length === 2, 'two attempts to the slow receiver')
    await gw.emit('alert.created', gw.projectId)
    await until(() => fast.received.length === 1, "the other webhook's delivery", 2000)
    t.equal(slow.received.length, 2, 'the slow webhook never had more than two attempts in flight')
  })

  t.test('no more than `concurrency` attempts are in flight at once across webhooks', async (t) => {
    const slow = await startReceiver(t, () => ({ status: 200, delayMs: NEVER_MS }))
    const gw = await startWebhookGateway(t, { ...(await place(t)), webhooks: { concurrency: 3, perWebhookConcurrency: 2 } })
    await register(gw, `${slow.url}/a`, ['case.created'])
    await register(gw, `${slow.url}/b`, ['case.created'])
    for (let i = 0; i < 4; i++) await gw.emit('case.created', gw.projectId)
    await until(() => slow.received.length === 3, 'three attempts in flight')
    const marker = await startReceiver(t)
    const markerId = await register(gw, marker.url, ['alert.created'])
    await gw.emit('alert.created', gw.projectId)
    // The pass that created the marker's delivery came after every other delivery existed and went
    // on to claim what it could. A write through the gateway is queued behind any claim that pass
    // made, so once it returns, the claims are visible.
    await until(async () => (await gw.api(`/api/webhooks/${markerId}/deliveries`)).body.deliveries.length === 1, 'the marker delivery')
    await gw.api(`/api/webhooks/${markerId}`, { method: 'PATCH', body: { events: ['alert.created'] } })
    const webhooks = (await gw.api('/api/webhooks')).body.webhooks as Array<{ id: string }>
    let attempted = 0
    for (const { id } of webhooks) attempted += (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries.filter((d: any) => d.attempts > 0).length
    t.equal(attempted, 3, 'three of nine deliveries claimed')
    t.equal(slow.received.length, 3)
    t.equal(marker.received.length, 0, 'no fourth attempt started')
  })

  t.test('an attempt without an answer within the timeout fails and is retried on schedule', async (t) => {
    const receiver = await startReceiver(t, (n) => (n === 0 ? { status: 200, delayMs: NEVER_MS } : { status: 200 }))
    const gw = await startWebhookGateway(t, { ...(await place(t)), webhooks: { timeoutMs: 1000 } })
    const id = await register(gw, receiver.url)
    await gw.emit('case.created', gw.projectId)
    let delivery: any
    await until(async () => {
      delivery = (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries[0]
      return delivery?.attempts === 1 && delivery.next_attempt !== null
    }, 'the timed-out attempt')
    t.match(delivery, {
      status: 'pending',
      response_code: null,
      error: 'no answer within 1000 ms',
      next_attempt: new Date(gw.clock.now() + 60_000).toISOString(),
    })
    gw.clock.advance(60_000)
    await until(async () => (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries[0].status === 'succeeded', 'the retry to succeed')
    t.equal(receiver.received.length, 2)
  })
})
