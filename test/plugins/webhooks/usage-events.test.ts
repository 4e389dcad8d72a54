// The metering plugin's usage events, driven by real traffic through the gateway against a small
// budget (the local provider answers): each threshold and the limit reach the webhook once.
import t from 'tap'
import { markerPass, register, startWebhookGateway } from './fixtures/gateway.ts'
import { startReceiver } from './fixtures/receiver.ts'
import { onBothStores } from './fixtures/stores.ts'
import { until } from '../../helpers/until.ts'
import { call } from '../../helpers/http.ts'

const request = { messages: [{ role: 'user', content: 'Summarize the quarterly numbers' }], model: 'gpt-4o', maxTokens: 50 }

onBothStores(t, (t, place) => {
  t.test('each usage event reaches the webhook exactly once per cause under real traffic against a small budget', async (t) => {
    const receiver = await startReceiver(t)
    const gw = await startWebhookGateway(t, { ...(await place(t)), budgetDollars: 0.01 })
    const id = await register(gw, receiver.url, ['usage.threshold_reached', 'usage.limit_exceeded'])
    const passAtNow = await markerPass(t, gw)
    // no-store: identical requests would otherwise be free cache hits.
    const complete = async () => (await call(`${gw.url}/api/ai/complete`, { key: gw.sk, body: request, headers: { 'cache-control': 'no-store' } })).status

    let answered = 0
    while ((await complete()) === 200) if (++answered > 200) throw new Error('the budget never ran out')
    for (let i = 0; i < 3; i++) t.equal(await complete(), 402, 'still over the budget')
    t.ok(answered >= 10, `${answered} requests fit before the budget ran out`)

    // Emitted after all the traffic: once it is delivered, every usage event before it has been
    // turned into deliveries.
    await passAtNow()
    const deliveries = (await gw.api(`/api/webhooks/${id}/deliveries?limit=100`)).body.deliveries as any[]
    t.equal(deliveries.length, 3, 'one delivery per event')
    await until(
      async () => (await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries.every((d: any) => d.status === 'succeeded'),
      'the deliveries to succeed',
    )
    const received = receiver.received.map((d) => d.body)
    const causes = received.map((e) => `${e.type}${e.data.threshold_percent === undefined ? '' : `@${e.data.threshold_percent}`}`).sort()
    t.same(causes, ['usage.limit_exceeded', 'usage.threshold_reached@80', 'usage.threshold_reached@90'], 'one event per threshold and one for the limit')
    t.equal(new Set(received.map((e) => e.id)).size, 3, 'three distinct event ids')
    t.ok(received.every((e) => e.project_id === gw.projectId && e.data.period === '2025-06'))
  })
})
