// A webhook whose deliveries keep failing is switched off, and its project is told through an
// alert.created event, delivered like any other event.
import t from 'tap'
import { markerPass, register, startWebhookGateway, type WebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { onBothStores } from './fixtures/stores.ts'
import { until } from '../../helpers/until.ts'

const SIX_HOURS = 6 * 3_600_000

async function deliveriesOf(gw: WebhookGateway, id: string): Promise<any[]> {
  return (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries
}

/** Waits for the webhook's `total` deliveries to be attempted, then runs out their retries until `failed` have failed. */
async function failAll(gw: WebhookGateway, id: string, total: number, failed = total): Promise<void> {
  await until(async () => {
    const list = await deliveriesOf(gw, id)
    return list.length === total && list.every((d) => d.attempts >= 1)
  }, `${total} deliveries attempted`)
  gw.clock.advance(SIX_HOURS)
  await until(async () => (await deliveriesOf(gw, id)).filter((d) => d.status === 'failed').length === failed, `${failed} deliveries to end failed`)
}

onBothStores(t, (t, place) => {
  t.test('after the configured number of failed deliveries in a row the webhook is disabled and an alert.created event is sent', async (t) => {
    const failing = await startReceiver(t, () => ({ status: 500 }))
    const alerts = await startReceiver(t)
    const gw = await startWebhookGateway(t, { ...(await place(t)), webhooks: { disableAfterFailures: 2 } })
    const id = await register(gw, failing.url, ['usage.limit_exceeded'])
    await register(gw, alerts.url, ['alert.created'])
    const passAtNow = await markerPass(t, gw)
    await gw.emit('usage.limit_exceeded', gw.projectId)
    await gw.emit('usage.limit_exceeded', gw.projectId)
    await failAll(gw, id, 2)

    await until(() => alerts.received.length === 1, 'the alert')
    t.match(alerts.received[0]!.body, {
      type: 'alert.created',
      project_id: gw.projectId,
      data: {
        alert_id: /^alt_[0-9a-z]{26}$/,
        severity: 'HIGH',
        title: 'Webhook disabled',
        message: new RegExp(`^Webhook ${id} \\(127\\.0\\.0\\.1:\\d+\\) was disabled after 2 consecutive failed deliveries`),
      },
    })
    t.match(
      (await gw.api('/api/webhooks')).body.webhooks.find((w: any) => w.id === id),
      { active: false },
    )
    t.equal(failing.received.length, 12, 'each delivery had its six attempts')

    await gw.emit('usage.limit_exceeded', gw.projectId)
    await passAtNow()
    t.equal((await deliveriesOf(gw, id)).length, 2, 'a disabled webhook gets no new deliveries')
    t.equal(alerts.received.length, 1, 'one alert')
  })

  t.test('reactivating a disabled webhook starts its failure count afresh, and a success resets it', async (t) => {
    const answers: number[] = []
    const receiver = await startReceiver(t, (n) => ({ status: answers[n] ?? 500 }))
    const gw = await startWebhookGateway(t, { ...(await place(t)), webhooks: { disableAfterFailures: 2 } })
    const id = await register(gw, receiver.url, ['case.created'])
    const active = async () => (await gw.api('/api/webhooks')).body.webhooks.find((w: any) => w.id === id).active as boolean

    await gw.emit('case.created', gw.projectId)
    await gw.emit('case.created', gw.projectId)
    await failAll(gw, id, 2)
    t.equal(await active(), false)
    t.equal((await gw.api(`/api/webhooks/${id}`, { method: 'PATCH', body: { active: true } })).body.active, true)

    await gw.emit('case.created', gw.projectId)
    await failAll(gw, id, 3)
    t.equal(await active(), true, 'one failure after reactivating is not two in a row')
    answers[receiver.received.length] = 200
    await gw.emit('case.created', gw.projectId)
    await until(async () => (await deliveriesOf(gw, id))[0].status === 'succeeded', 'a success')
    await gw.emit('case.created', gw.projectId)
    await failAll(gw, id, 5, 4)
    t.equal(await active(), true, 'the success broke the streak')
  })
})
