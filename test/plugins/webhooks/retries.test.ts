// The retry schedule under a manual clock: attempts 1, 5, 15, 60 and 360 minutes after the first,
// then failed. A marker delivery proves that the worker has looked at the current time, so "not
// yet" is checked without sleeping.
import t from 'tap'
import { RETRY_OFFSETS_MS } from '../../../plugins/webhooks/logic/retry-schedule.ts'
import { markerPass, register, startWebhookGateway, type WebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { onBothStores } from './fixtures/stores.ts'
import { until } from '../../helpers/until.ts'

const MINUTE = 60_000

async function deliveryOf(gw: WebhookGateway, webhookId: string) {
  const list = (await gw.api(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries
  if (list.length !== 1) throw new Error(`expected one delivery, found ${list.length}`)
  return list[0]
}

/** Waits until the delivery's latest attempt has been recorded. */
async function settledAfter(gw: WebhookGateway, webhookId: string, attempts: number) {
  let delivery: any
  await until(async () => {
    delivery = (await gw.api(`/api/webhooks/${webhookId}/deliveries`)).body.deliveries[0]
    return delivery?.attempts === attempts && (delivery.next_attempt !== null || delivery.status !== 'pending')
  }, `attempt ${attempts} to be recorded`)
  return delivery
}

async function counted(gw: WebhookGateway, outcome: string): Promise<number> {
  const text = (await gw.api('/metrics')).body as string
  return Number(new RegExp(`^tollgate_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
}

onBothStores(t, (t, place) => {
  t.test('a failing delivery is retried 1, 5, 15, 60 and 360 minutes after its first attempt, then marked failed', async (t) => {
    const failing = await startReceiver(t, () => ({ status: 500 }))
    const gw = await startWebhookGateway(t, await place(t))
    const id = await register(gw, failing.url, ['usage.limit_exceeded'])
    const passAtNow = await markerPass(t, gw)
    const first = gw.clock.now()
    const event = await gw.emit('usage.limit_exceeded', gw.projectId, { period: '2025-06' })

    let delivery = await settledAfter(gw, id, 1)
    t.match(delivery, { status: 'pending', attempts: 1, response_code: 500, error: 'HTTP 500', next_attempt: new Date(first + MINUTE).toISOString() })
    for (const [index, offset] of RETRY_OFFSETS_MS.entries()) {
      const attempts = index + 1
      gw.clock.set(first + offset - 1000)
      await passAtNow()
      t.equal((await deliveryOf(gw, id)).attempts, attempts, `no retry a second before ${offset / MINUTE} min`)
      gw.clock.set(first + offset)
      await until(() => failing.received.length === attempts + 1, `the retry at ${offset / MINUTE} min`)
      delivery = await settledAfter(gw, id, attempts + 1)
      const next = RETRY_OFFSETS_MS[index + 1]
      t.equal(
        delivery.next_attempt,
        next === undefined ? null : new Date(first + next).toISOString(),
        `after attempt ${attempts + 1} the next is scheduled from the first attempt`,
      )
      t.equal(failing.received[attempts]!.headers['x-gateway-timestamp'], String((first + offset) / 1000), 'each attempt is stamped with its own time')
    }
    t.match(delivery, { status: 'failed', attempts: 6, response_code: 500, next_attempt: null })

    gw.clock.advance(7 * 24 * 60 * MINUTE)
    await passAtNow()
    t.equal((await deliveryOf(gw, id)).attempts, 6, 'nothing more is attempted')
    t.equal(failing.received.length, 6, 'the first attempt and five retries')
    t.ok(
      failing.received.every((d) => d.headers['x-gateway-event-id'] === event.id && d.raw.equals(failing.received[0]!.raw)),
      'every attempt carries the same event id and the same body bytes',
    )
    t.equal(await counted(gw, 'retrying'), 5)
    t.equal(await counted(gw, 'failed'), 1)
  })

  t.test('a 2xx on a retry ends the schedule as succeeded', async (t) => {
    const flaky = await startReceiver(t, (n) => ({ status: n === 0 ? 503 : 204 }))
    const gw = await startWebhookGateway(t, await place(t))
    const id = await register(gw, flaky.url)
    await gw.emit('alert.created', gw.projectId, { alert_id: 'alt_1', severity: 'HIGH', title: 't', message: 'm' })
    t.match(await settledAfter(gw, id, 1), { status: 'pending', response_code: 503 })
    gw.clock.advance(MINUTE)
    t.match(await settledAfter(gw, id, 2), { status: 'succeeded', attempts: 2, response_code: 204, error: null, next_attempt: null })
    t.equal(flaky.received.length, 2)
  })
})
