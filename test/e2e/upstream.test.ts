// The gateway against a real mock provider server speaking the OpenAI, Anthropic and Mistral
// wire formats: routing, streaming, retries, timeouts, cut streams and client disconnects.
import t, { type Test } from 'tap'
import { request } from 'undici'
import { call, hello, parseSse } from '../helpers/http.ts'
import { startMockedGateway } from '../helpers/mocked-gateway.ts'
import { openStore } from '../../proxy/stores/store.ts'
import { createLedger } from '../../plugins/metering/store/lmdb/ledger.ts'

function setup(t: Test, router: Record<string, unknown> = {}) {
  const retry = { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 }
  return startMockedGateway(t, { plugins: { router: { retry, ...router } } })
}

async function chat(url: string, key: string, body: unknown, signal?: AbortSignal) {
  return request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  })
}

t.test('complete is routed to OpenAI in its wire format and reports its usage', async (t) => {
  const { mock, url, key } = await setup(t)
  const res = await call(`${url}/api/ai/complete`, { key, body: { ...hello, temperature: 0.2, maxTokens: 50 } })
  t.equal(res.status, 200)
  t.equal(res.headers['x-gateway-model'], 'openai/gpt-4o-mini')
  t.match(res.body, { provider: 'openai', model: 'gpt-4o-mini', cacheHit: false, usage: { promptTokens: Number, completionTokens: Number } })
  t.equal(res.body.usage.totalTokens, res.body.usage.promptTokens + res.body.usage.completionTokens)
  const sent = mock.requests[0]!
  t.equal(sent.path, '/v1/chat/completions')
  t.equal(sent.headers.authorization, 'Bearer test-openai')
  t.match(sent.body, { model: 'gpt-4o-mini', temperature: 0.2, max_completion_tokens: 50, messages: hello.messages })
  t.equal(res.headers['x-gateway-completion-tokens'], String(res.body.usage.completionTokens))
  t.equal(Number(res.headers['x-credits-charged']), res.body.usage.costCents / 100)
})

t.test('chat streams an Anthropic answer as delta events, a done event and trailers', async (t) => {
  const { mock, url, key } = await setup(t)
  const res = await chat(url, key, { ...hello, quality: 'cheap' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/event-stream/)
  t.equal(res.headers['x-gateway-model'], 'anthropic/claude-3-haiku-20240307')
  t.equal(res.headers['x-cache-status'], 'MISS')
  t.equal(res.headers.trailer, 'x-gateway-completion-tokens, x-credits-charged, x-credits-remaining')
  const events = parseSse(await res.body.text())
  const deltas = events.filter((e) => e.event === 'delta')
  t.ok(deltas.length >= 2, 'several delta events')
  const done = events.at(-1)!
  t.equal(done.event, 'done')
  t.match(done.data, { provider: 'anthropic', model: 'claude-3-haiku-20240307', cacheHit: false, usage: { promptTokens: Number } })
  t.equal(res.trailers['x-gateway-completion-tokens'], String(done.data.usage.completionTokens))
  t.equal(Number(res.trailers['x-credits-charged']), done.data.creditsCharged)
  t.equal(Number(res.trailers['x-credits-remaining']), done.data.creditsRemaining)
  const sent = mock.requests[0]!
  t.equal(sent.path, '/v1/messages')
  t.equal(sent.headers['x-api-key'], 'test-anthropic')
  t.match(sent.body, { model: 'claude-3-haiku-20240307', stream: true })
})

t.test('chat streams a Mistral answer when the model is named', async (t) => {
  const { url, key } = await setup(t)
  const res = await chat(url, key, { ...hello, model: 'mistral-large-latest' })
  t.equal(res.headers['x-gateway-model'], 'mistral/mistral-large-latest')
  const events = parseSse(await res.body.text())
  t.match(events.at(-1), { event: 'done', data: { provider: 'mistral', model: 'mistral-large-latest' } })
})

t.test('a 5xx and a reset before the first byte are retried and the client sees a 200', async (t) => {
  const { mock, url, key } = await setup(t)
  mock.fail('server-error')
  mock.fail('reset')
  const res = await call(`${url}/api/ai/complete`, { key, body: hello })
  t.equal(res.status, 200)
  t.equal(mock.requests.length, 3)
})

t.test('a provider 4xx is not retried and keeps its status and code', async (t) => {
  const { mock, url, key } = await setup(t)
  mock.fail('bad-request')
  const res = await call(`${url}/api/ai/complete`, { key, body: hello })
  t.equal(res.status, 400)
  t.equal(res.body.error, 'Invalid request')
  t.equal(res.body.code, 'context_length_exceeded')
  t.equal(res.headers['x-should-retry'], 'false')
  t.equal(mock.requests.length, 1)
})

t.test('a slow first byte becomes a 504 Upstream timeout', async (t) => {
  const { mock, url, key } = await setup(t, { timeouts: { firstByteMs: 150 }, retry: { attempts: 0, baseDelayMs: 0, maxDelayMs: 0 } })
  mock.fail('slow-first-byte')
  const res = await call(`${url}/api/ai/complete`, { key, body: hello })
  t.equal(res.status, 504)
  t.equal(res.body.error, 'Upstream timeout')
  t.equal(res.body.code, 'upstream_timeout')
})

t.test('json mode with an answer that does not parse becomes a 502 Upstream returned invalid JSON', async (t) => {
  const { mock, url, key } = await setup(t, { retry: { attempts: 0, baseDelayMs: 0, maxDelayMs: 0 } })
  mock.fail('invalid-json')
  const res = await call(`${url}/api/ai/complete`, { key, body: { ...hello, mode: 'json' } })
  t.equal(res.status, 502)
  t.same(res.body, {
    error: 'Upstream returned invalid JSON',
    message: 'The model was asked for JSON but its answer does not parse.',
    code: 'upstream_invalid_json',
  })
})

t.test('json mode returns text that parses as JSON', async (t) => {
  const { url, key } = await setup(t)
  const res = await call(`${url}/api/ai/complete`, { key, body: { ...hello, mode: 'json' } })
  t.equal(res.status, 200)
  t.doesNotThrow(() => JSON.parse(res.body.text))
})

t.test('a stream cut by the provider mid-way ends with an error event', async (t) => {
  const { mock, url, key } = await setup(t)
  mock.fail('stream-cut')
  const res = await chat(url, key, hello)
  t.equal(res.statusCode, 200)
  const events = parseSse(await res.body.text())
  t.ok(
    events.some((e) => e.event === 'delta'),
    'the part that arrived was streamed',
  )
  t.match(events.at(-1), { event: 'error', data: { error: 'Upstream error', message: String } })
})

t.test('a client that disconnects mid-stream aborts the upstream call and is metered for what was generated', async (t) => {
  const { mock, url, key, gateway, dataDir, projectId } = await setup(t)
  mock.fail('slow-stream')
  const controller = new AbortController()
  const res = await chat(url, key, hello, controller.signal)
  const reader = res.body[Symbol.asyncIterator]()
  await reader.next()
  controller.abort()
  await mock.whenAborted()
  t.pass('the provider saw its request closed')
  await gateway.close()
  const store = openStore(dataDir)
  t.teardown(() => store.close())
  const ledger = createLedger(store.forPlugin('metering'))
  t.equal(ledger.reservationCount(), 0, 'no reservation is left behind')
  const entry = ledger.entry(String(res.headers['x-request-id']))
  t.match(entry, { projectId, outcome: 'client_aborted', cacheHit: false }, 'the request has its ledger entry')
  t.ok(entry!.completionTokens > 0 && entry!.costMicros > 0, 'the generated tokens were metered and charged')
})
