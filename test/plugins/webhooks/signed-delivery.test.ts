// What a receiver gets: the spec's body, the headers, and signatures that verify over exactly the
// bytes received; and which webhooks an event goes to.
import t, { type Test } from 'tap'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { register, SECRET, startWebhookGateway } from './fixtures/gateway.ts'
import { startReceiver, type ReceivedDelivery } from './fixtures/receiver.ts'
import { onBothStores } from './fixtures/stores.ts'
import { until } from '../../helpers/until.ts'

function verifies(secret: string, signed: Buffer, header: unknown): boolean {
  const expected = createHmac('sha256', secret).update(signed).digest()
  const given = Buffer.from(String(header), 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

function checkSignatures(t: Test, delivery: ReceivedDelivery, secret: string): void {
  const timestamp = String(delivery.headers['x-gateway-timestamp'])
  t.ok(verifies(secret, delivery.raw, delivery.headers['x-gateway-signature']), 'x-gateway-signature is the HMAC of the raw body bytes')
  t.ok(
    verifies(secret, Buffer.concat([Buffer.from(`${timestamp}.`), delivery.raw]), delivery.headers['x-gateway-signature-v2']),
    'x-gateway-signature-v2 covers `${timestamp}.${body}`',
  )
}

onBothStores(t, (t, place) => {
  t.test('a delivery carries the spec body and headers, and both signatures verify over the exact bytes received', async (t) => {
    const receiver = await startReceiver(t)
    const gw = await startWebhookGateway(t, await place(t))
    await register(gw, receiver.url)
    // Non-ASCII text and nesting: the signature must cover bytes, not a re-serialization.
    const data = { period: '2025-06', note: 'café ✓ — 東京', nested: { list: [1, 2.5, null, true], empty: {} } }
    const event = await gw.emit('usage.threshold_reached', gw.projectId, data)
    await until(() => receiver.received.length === 1, 'the delivery')
    const delivery = receiver.received[0]!
    t.equal(delivery.headers['content-type'], 'application/json')
    t.equal(delivery.headers['x-gateway-event-id'], event.id)
    t.equal(delivery.headers['x-gateway-timestamp'], String(Math.floor(gw.clock.now() / 1000)), 'unix seconds at the attempt')
    t.equal(
      delivery.raw.toString('utf8'),
      JSON.stringify({ id: event.id, type: 'usage.threshold_reached', timestamp: '2025-06-02T09:00:00.000Z', project_id: gw.projectId, data }),
      "the body is the spec's {id, type, timestamp, project_id, data}",
    )
    checkSignatures(t, delivery, SECRET)
    t.notOk(verifies('some-other-secret-123', delivery.raw, delivery.headers['x-gateway-signature']), 'another secret does not verify')
    const tampered = Buffer.from(delivery.raw)
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 2) ^ 1, tampered.length - 2)
    t.notOk(verifies(SECRET, tampered, delivery.headers['x-gateway-signature']), 'one flipped bit does not verify')
  })

  t.test('after the secret is changed, deliveries are signed with the new one', async (t) => {
    const receiver = await startReceiver(t)
    const gw = await startWebhookGateway(t, await place(t))
    const id = await register(gw, receiver.url)
    const rotated = 'rotated-secret-abcdefghijkl'
    t.equal((await gw.api(`/api/webhooks/${id}`, { method: 'PATCH', body: { secret: rotated } })).status, 200)
    await gw.emit('case.created', gw.projectId)
    await until(() => receiver.received.length === 1, 'the delivery')
    checkSignatures(t, receiver.received[0]!, rotated)
    t.notOk(verifies(SECRET, receiver.received[0]!.raw, receiver.received[0]!.headers['x-gateway-signature']), 'the old secret no longer verifies')
  })

  t.test('an event goes to every active webhook of its project subscribed to its kind, and to no other', async (t) => {
    const receiver = await startReceiver(t)
    const gw = await startWebhookGateway(t, await place(t))
    const at = (name: string) => `${receiver.url}/${name}`
    const exact = await register(gw, at('exact'), ['usage.limit_exceeded'])
    const everything = await register(gw, at('everything'), ['*'])
    const otherKind = await register(gw, at('other-kind'), ['alert.created', 'usage.threshold_reached'])
    const inactive = await register(gw, at('inactive'), ['*'])
    await gw.api(`/api/webhooks/${inactive}`, { method: 'PATCH', body: { active: false } })
    // Emitted first, so it is taken out of the outbox no later than the event that is delivered.
    await gw.emit('usage.limit_exceeded', 'proj_of_someone_else')
    const event = await gw.emit('usage.limit_exceeded', gw.projectId)
    await until(() => receiver.received.length === 2, 'two deliveries')
    t.same(receiver.received.map((d) => d.path).sort(), ['/hooks/everything', '/hooks/exact'])
    t.ok(
      receiver.received.every((d) => d.body.id === event.id),
      "both carry the project's event",
    )
    // Deliveries are created in one transaction per batch: had the others matched, they would exist now.
    for (const id of [otherKind, inactive]) t.same((await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries, [], `no delivery for ${id}`)
    for (const id of [exact, everything]) t.equal((await gw.api(`/api/webhooks/${id}/deliveries`)).body.deliveries.length, 1)
  })
})
