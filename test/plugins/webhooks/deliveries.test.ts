// The test endpoint, the deliveries list and redelivery.
import t from 'tap'
import { markerPass, register, startWebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { onBothStores } from './fixtures/stores.ts'
import { until } from '../../helpers/until.ts'

onBothStores(t, (t, place) => {
  t.test("the test endpoint sends a test event at once and answers with the delivery's outcome", async (t) => {
    const receiver = await startReceiver(t)
    const gw = await startWebhookGateway(t, await place(t))
    const id = await register(gw, receiver.url)
    const res = await gw.api('/api/webhooks/test', { key: gw.pk, body: { webhook_id: id, event_type: 'violation.detected' } })
    t.equal(res.status, 200)
    t.match(res.body, {
      success: true,
      duration_ms: Number,
      delivery: {
        id: /^dlv_/,
        webhook_id: id,
        event_type: 'violation.detected',
        status: 'succeeded',
        attempts: 1,
        response_code: 200,
        error: null,
        next_attempt: null,
        test: true,
      },
    })
    t.equal(receiver.received.length, 1, 'sent before the answer')
    t.match(receiver.received[0]!.body, { id: res.body.delivery.event_id, type: 'violation.detected', project_id: gw.projectId, data: { test: true } })
    t.same(Object.keys(receiver.received[0]!.body.data), ['test'], 'the data of a test event is {test: true}')
  })

  t.test("a failed test delivery reports the receiver's status, and is neither retried nor counted toward disabling", async (t) => {
    const receiver = await startReceiver(t, () => ({ status: 503 }))
    const gw = await startWebhookGateway(t, { ...(await place(t)), webhooks: { disableAfterFailures: 1 } })
    const id = await register(gw, receiver.url, ['alert.created'])
    const passAtNow = await markerPass(t, gw)
    const res = await gw.api('/api/webhooks/test', { body: { webhook_id: id, event_type: 'alert.created' } })
    t.match(res.body, { success: false, delivery: { status: 'failed', attempts: 1, response_code: 503, error: 'HTTP 503', next_attempt: null } })
    gw.clock.advance(24 * 3_600_000)
    await passAtNow()
    t.match((await gw.api('/api/webhooks')).body.webhooks, [{ id, active: true }], 'still active')
    t.equal(receiver.received.length, 1)
  })

  t.test('the deliveries list shows the newest first with status, attempts, response code and next attempt, within its limit', async (t) => {
    const receiver = await startReceiver(t, (n) => ({ status: n === 1 ? 500 : 200 }))
    const gw = await startWebhookGateway(t, await place(t))
    const id = await register(gw, receiver.url)
    const first = await gw.emit('case.created', gw.projectId)
    await until(() => receiver.received.length === 1, 'the first delivery')
    gw.clock.advance(1000)
    const second = await gw.emit('case.updated', gw.projectId)
    await until(() => receiver.received.length === 2, 'the second delivery')
    let list: any[] = []
    await until(async () => {
      list = (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries
      return list.length === 2 && list[0].attempts === 1 && list[0].next_attempt !== null && list[1].status === 'succeeded'
    }, 'both outcomes recorded')
    t.match(list, [
      {
        event_id: second.id,
        event_type: 'case.updated',
        status: 'pending',
        attempts: 1,
        response_code: 500,
        next_attempt: new Date(gw.clock.now() + 60_000).toISOString(),
      },
      { event_id: first.id, event_type: 'case.created', status: 'succeeded', attempts: 1, response_code: 200, next_attempt: null },
    ])
    t.same(
      (await gw.api(`/api/webhooks/${id}/deliveries?limit=1`)).body.deliveries.map((d: any) => d.event_id),
      [second.id],
    )
  })

  t.test('redeliver queues a finished delivery again with the same event id, and refuses one still pending', async (t) => {
    const receiver = await startReceiver(t, (n) => ({ status: n === 0 ? 500 : 200 }))
    const gw = await startWebhookGateway(t, await place(t))
    const id = await register(gw, receiver.url)
    const failed = (await gw.api('/api/webhooks/test', { body: { webhook_id: id, event_type: 'case.created' } })).body.delivery
    t.equal(failed.status, 'failed')
    const again = await gw.api(`/api/webhooks/${id}/deliveries/${failed.id}/redeliver`, { method: 'POST' })
    t.equal(again.status, 202)
    t.match(again.body, { event_id: failed.event_id, status: 'pending', attempts: 0 })
    t.not(again.body.id, failed.id, "a new delivery, so the first one's history stays")
    await until(() => receiver.received.length === 2, 'the redelivery')
    t.equal(receiver.received[1]!.headers['x-gateway-event-id'], failed.event_id)
    t.ok(receiver.received[1]!.raw.equals(receiver.received[0]!.raw), 'the same body')

    const failing = await startReceiver(t, () => ({ status: 500 }))
    const other = await register(gw, failing.url, ['usage.limit_exceeded'])
    await gw.emit('usage.limit_exceeded', gw.projectId)
    await until(() => failing.received.length === 1, 'a delivery that will be retried')
    const pending = (await gw.api(`/api/webhooks/${other}/deliveries`)).body.deliveries[0]
    const refused = await gw.api(`/api/webhooks/${other}/deliveries/${pending.id}/redeliver`, { method: 'POST' })
    t.equal(refused.status, 409)
    t.match(refused.body.message, /still pending/)
    t.equal((await gw.api(`/api/webhooks/${id}/deliveries/dlv_unknown/redeliver`, { method: 'POST' })).status, 404)
    t.equal((await gw.api(`/api/webhooks/${id}/deliveries/${pending.id}/redeliver`, { method: 'POST' })).status, 404, 'a delivery of another webhook')
  })

  t.test('deleting a webhook removes its deliveries, and pending ones are never sent', async (t) => {
    const failing = await startReceiver(t, () => ({ status: 500 }))
    const gw = await startWebhookGateway(t, await place(t))
    const id = await register(gw, failing.url, ['case.created'])
    const passAtNow = await markerPass(t, gw)
    await gw.emit('case.created', gw.projectId)
    await until(async () => {
      const [delivery] = (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries
      return delivery?.attempts === 1 && delivery.next_attempt !== null
    }, 'the first attempt to be recorded')
    t.equal((await gw.api(`/api/webhooks/${id}`, { method: 'DELETE' })).status, 200)
    t.equal((await gw.api(`/api/webhooks/${id}/deliveries`)).status, 404)
    gw.clock.advance(3_600_000)
    await passAtNow()
    t.equal(failing.received.length, 1, 'no retry after the delete')
    // The marker's own outcome is recorded just after its receiver got it.
    await until(async () => /^tollgate_webhook_pending 0$/m.test((await gw.api('/metrics')).body), 'no delivery left pending')
  })

  t.test('finished deliveries are pruned once they are older than retentionDays', async (t) => {
    const receiver = await startReceiver(t)
    const gw = await startWebhookGateway(t, { ...(await place(t)), webhooks: { retentionDays: 1 } })
    const id = await register(gw, receiver.url, ['case.created'])
    await gw.emit('case.created', gw.projectId)
    await until(async () => (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries[0]?.status === 'succeeded', 'the delivery')
    gw.clock.advance(23 * 3_600_000)
    const passAtNow = await markerPass(t, gw)
    await passAtNow()
    t.equal((await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries.length, 1, 'kept within a day')
    gw.clock.advance(2 * 3_600_000)
    await until(async () => (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries.length === 0, 'the old delivery to be pruned')
    t.pass('pruned after a day')
  })
})
