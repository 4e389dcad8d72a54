// Stripe's semantics on the AI routes: the same key and request get the stored answer, marked as
// a replay and not charged again; another request under the key is a 409; a bad key is a 400; a
// request that ends without an answer leaves the key free for a retry.
import t from 'tap'
import { call, parseSse } from '../../helpers/http.ts'
import { seedProject } from '../../helpers/start-gateway.ts'
import { body, idempotencyGateway } from './fixtures.ts'

t.test('a retry with the same key and body gets the same answer, marked as a replay, and is charged once', async (t) => {
  const gw = await idempotencyGateway(t)
  const first = await gw.send('complete', 'order-1')
  t.equal(first.status, 200)
  t.equal(first.headers['x-idempotent-replay'], undefined, 'the first answer is no replay')
  const charged = Number(first.headers['x-credits-charged'])
  t.ok(charged > 0)
  t.equal(await gw.budgetUsed(), charged)

  // Without the key the same request is a new one, charged again: the checks below could fail.
  const unkeyed = await gw.send('complete', undefined)
  t.equal(unkeyed.headers['x-idempotent-replay'], undefined)
  const used = Math.round((charged + Number(unkeyed.headers['x-credits-charged'])) * 1e6) / 1e6
  t.equal(await gw.budgetUsed(), used)
  t.equal(await gw.requestsMetered(), 2)

  const retry = await gw.send('complete', 'order-1')
  t.equal(retry.status, 200)
  t.strictSame(retry.body, first.body, "the same Completion result, its usage.costCents the answer's cost")
  t.equal(retry.headers['x-idempotent-replay'], 'true')
  t.equal(retry.headers['x-original-request-id'], first.headers['x-request-id'])
  t.not(retry.headers['x-request-id'], first.headers['x-request-id'], 'the replay has its own request id')
  for (const name of ['x-gateway-model', 'x-gateway-prompt-tokens', 'x-gateway-completion-tokens', 'x-cache-status']) {
    t.equal(retry.headers[name], first.headers[name], `${name} is the original's`)
  }
  t.equal(retry.headers['x-credits-charged'], '0.000000', 'the replay itself is charged nothing')
  t.equal(retry.headers['x-credits-remaining'], unkeyed.headers['x-credits-remaining'], 'what is left now, not when the original ran')
  t.equal(gw.mock.requests.length, 2, 'the model was called for the original and the unkeyed request only')
  t.equal(await gw.budgetUsed(), used, 'the budget did not move')
  t.equal(await gw.requestsMetered(), 2, 'no ledger entry for the replay')
})

t.test('a streamed chat is replayed as the same text and a done event that charges nothing', async (t) => {
  const gw = await idempotencyGateway(t)
  const first = await gw.send('chat', 'chat-1')
  t.equal(first.status, 200)
  const firstEvents = parseSse(first.body)
  t.ok(firstEvents.filter((e) => e.event === 'delta').length > 1, 'the original came in several chunks')
  const text = firstEvents
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text)
    .join('')
  const firstDone = firstEvents.at(-1)!.data
  t.ok(firstDone.creditsCharged > 0)
  const unkeyed = await gw.send('complete', undefined)

  const retry = await gw.send('chat', 'chat-1')
  t.equal(retry.status, 200)
  t.ok(retry.headers['content-type']?.startsWith('text/event-stream'))
  t.equal(retry.headers['x-idempotent-replay'], 'true')
  const events = parseSse(retry.body)
  t.strictSame(
    events.map((e) => e.event),
    ['delta', 'done'],
  )
  t.equal(events[0]!.data.text, text)
  const remaining = Number(unkeyed.headers['x-credits-remaining'])
  t.strictSame(events[1]!.data, { ...firstDone, creditsCharged: 0, creditsRemaining: remaining }, "the same done event, but this request's credits")
  t.equal(retry.headers['x-credits-charged'], '0.000000')
  t.equal(retry.headers['x-credits-remaining'], unkeyed.headers['x-credits-remaining'])
  t.equal(gw.mock.requests.length, 2)
  t.equal(await gw.requestsMetered(), 2)
})

t.test("a dialect's replay (OpenAI chat completions, whole and streamed) charges nothing in its headers", async (t) => {
  const gw = await idempotencyGateway(t)
  const send = (stream: boolean) =>
    call(`${gw.url}/v1/chat/completions`, {
      headers: { authorization: `Bearer ${gw.key}`, 'idempotency-key': `openai-${stream}`, 'cache-control': 'no-store' },
      body: { model: 'gpt-4o-mini', messages: body.messages, stream },
    })
  for (const stream of [false, true]) {
    const first = await send(stream)
    t.equal(first.status, 200)
    const charged = stream ? first.trailers['x-credits-charged'] : first.headers['x-credits-charged']
    t.ok(Number(charged) > 0, 'the original is charged')
    const retry = await send(stream)
    t.equal(retry.headers['x-idempotent-replay'], 'true')
    t.equal(retry.headers['x-credits-charged'], '0.000000', 'the replay is not')
    t.equal(retry.headers['x-credits-remaining'], String((1000 - (await gw.budgetUsed())).toFixed(6)))
    // The completion's id and its `created` second are the answering request's, as on any answer.
    if (!stream) t.strictSame({ ...retry.body, id: first.body.id, created: first.body.created }, first.body, 'the same body')
  }
  t.equal(gw.mock.requests.length, 2)
  t.equal(await gw.requestsMetered(), 2)
})

t.test('the same key with another body or on another endpoint is a 409, and runs nothing', async (t) => {
  const gw = await idempotencyGateway(t)
  await gw.send('complete', 'order-2')
  const other = await gw.send('complete', 'order-2', { ...body, temperature: 0.1 })
  t.equal(other.status, 409)
  t.strictSame(other.body, {
    error: 'Conflict',
    message: 'This Idempotency-Key was used in the last 24 hours with a different request (another body or endpoint). Send a new key for a new request.',
    code: 'idempotency_key_reused',
  })
  const chat = await gw.send('chat', 'order-2')
  t.equal(chat.status, 409)
  t.equal(chat.body.code, 'idempotency_key_reused')
  t.equal(gw.mock.requests.length, 1)
  t.equal(await gw.requestsMetered(), 1)

  const reordered = await gw.send('complete', 'order-2', { model: body.model, maxTokens: 1000, messages: body.messages })
  t.equal(reordered.headers['x-idempotent-replay'], 'true', 'field order and a default sent explicitly are the same request')
})

t.test('a key is scoped to its project', async (t) => {
  const gw = await idempotencyGateway(t)
  const other = await seedProject(gw.dataDir)
  await gw.send('complete', 'shared-name')
  const res = await call(`${gw.url}/api/ai/complete`, {
    key: other.keys[0]!.key,
    body,
    headers: { 'idempotency-key': 'shared-name', 'cache-control': 'no-store' },
  })
  t.equal(res.status, 200)
  t.equal(res.headers['x-idempotent-replay'], undefined)
  t.equal(gw.mock.requests.length, 2)
})

t.test('a malformed key is a 400 that names the rule', async (t) => {
  const gw = await idempotencyGateway(t)
  for (const bad of ['', 'k'.repeat(256)]) {
    const res = await gw.send('complete', bad)
    t.equal(res.status, 400)
    t.strictSame(res.body, {
      error: 'Invalid request: Idempotency-Key must be 1 to 255 printable ASCII characters.',
      message: 'Idempotency-Key must be 1 to 255 printable ASCII characters.',
      code: 'invalid_idempotency_key',
    })
  }
  t.equal((await gw.send('complete', 'k'.repeat(255))).status, 200)
})

t.test('a request that fails leaves the key free: the retry runs and is answered', async (t) => {
  const gw = await idempotencyGateway(t)
  gw.mock.fail('server-error')
  const failed = await gw.send('complete', 'flaky')
  t.equal(failed.status, 502)
  const retry = await gw.send('complete', 'flaky')
  t.equal(retry.status, 200)
  t.equal(retry.headers['x-idempotent-replay'], undefined, 'it ran, it is no replay')
  t.equal(gw.mock.requests.length, 2)
  t.equal((await gw.send('complete', 'flaky')).headers['x-idempotent-replay'], 'true', 'and now it is stored')
})

t.test('a stream cut short leaves the key free, and the retry streams the whole answer', async (t) => {
  const gw = await idempotencyGateway(t)
  gw.mock.fail('stream-cut')
  const cut = await gw.send('chat', 'cut')
  t.equal(parseSse(cut.body).at(-1)!.event, 'error')
  const retry = await gw.send('chat', 'cut')
  t.equal(retry.headers['x-idempotent-replay'], undefined)
  t.equal(parseSse(retry.body).at(-1)!.event, 'done')
  t.equal((await gw.send('chat', 'cut')).headers['x-idempotent-replay'], 'true')
})

t.test('requests without the header are untouched', async (t) => {
  const gw = await idempotencyGateway(t)
  const a = await gw.send('complete', undefined)
  const b = await gw.send('complete', undefined)
  t.equal(a.status, 200)
  t.equal(b.headers['x-idempotent-replay'], undefined)
  t.equal(gw.mock.requests.length, 2)
})
