// How failures of the connection itself reach the router: through a real adapter, a real undici
// pool and the mock upstream. undici 8 checks its first-byte and idle timeouts on a ~0.5 s tick,
// so the timeout tests take up to a second whatever timeout they set.
import t, { type Test } from 'tap'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { UpstreamError, UpstreamTimeoutError } from '../../../proxy/pipeline/errors.ts'
import { createUpstream } from '../../../proxy/pipeline/upstream.ts'
import type { ProviderRequest } from '../../../plugins/router/providers/adapter.ts'
import { createChatCompletionsAdapter } from '../../../plugins/router/providers/chat-completions.ts'
import { startMockUpstream, type MockUpstreamOptions } from '../../helpers/mock-upstream.ts'
import { TEST_KEY, caught, collect, testUpstream, user } from './fixtures.ts'
import { until } from '../../helpers/until.ts'

const request: ProviderRequest = {
  model: 'gpt-4o-mini',
  messages: [user('Tell me about the weather in Lyon today.')],
  temperature: 0.7,
  maxTokens: 100,
  mode: 'text',
  promptTokens: 12,
}

async function setup(t: Test, timeouts: { firstByteTimeoutMs?: number; idleTimeoutMs?: number } = {}, options: MockUpstreamOptions = {}) {
  const mock = await startMockUpstream(options)
  t.teardown(() => mock.close())
  const adapter = createChatCompletionsAdapter(testUpstream(t, timeouts), {
    label: 'openai',
    baseUrl: mock.url,
    apiKey: TEST_KEY,
    asksForStreamUsage: true,
    maxTemperature: 2,
    catalog: modelCatalog(),
  })
  return { mock, adapter }
}

t.test('a connection reset becomes a retryable UpstreamError', async (t) => {
  const { mock, adapter } = await setup(t)
  mock.fail('reset')
  const err = await caught(adapter.complete(request, new AbortController().signal))
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: true, message: 'The connection to openai failed (UND_ERR_SOCKET).' })
  t.equal(mock.aborted, 0, 'the mock itself closed the socket')
})

t.test('a refused connection becomes a retryable UpstreamError', async (t) => {
  const mock = await startMockUpstream()
  await mock.close()
  const adapter = createChatCompletionsAdapter(testUpstream(t), {
    label: 'openai',
    baseUrl: mock.url,
    apiKey: TEST_KEY,
    asksForStreamUsage: true,
    maxTemperature: 2,
    catalog: modelCatalog(),
  })
  const err = await caught(adapter.complete(request, new AbortController().signal))
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: true, message: 'The connection to openai failed (ECONNREFUSED).' })
})

// Side by side, so the file waits for undici's timer tick once.
t.test('undici timeouts become UpstreamTimeoutErrors', { jobs: 2 }, async (t) => {
  t.test('a first byte slower than the timeout becomes an UpstreamTimeoutError and closes the request', async (t) => {
    const { mock, adapter } = await setup(t, { firstByteTimeoutMs: 1 })
    mock.fail('slow-first-byte')
    const err = await caught(adapter.complete(request, new AbortController().signal))
    t.ok(err instanceof UpstreamTimeoutError)
    t.match(err, { retryable: true, message: 'openai did not start answering in time.' })
    await mock.whenAborted()
  })

  t.test('a stream that goes silent longer than the idle timeout becomes an UpstreamTimeoutError', async (t) => {
    const { mock, adapter } = await setup(t, { idleTimeoutMs: 1 }, { slowStreamMs: 10_000 })
    mock.fail('slow-stream')
    const err = await caught(collect(adapter.stream(request, new AbortController().signal)))
    t.ok(err instanceof UpstreamTimeoutError)
    t.match(err, { message: 'openai went silent in the middle of its answer.' })
  })
})

t.test('a stream cut mid-way yields what arrived, then throws a retryable UpstreamError', async (t) => {
  const { mock, adapter } = await setup(t)
  mock.fail('stream-cut')
  const seen: string[] = []
  const err = await caught(
    (async () => {
      for await (const batch of adapter.stream(request, new AbortController().signal)) {
        for (const event of batch) if (event.type === 'delta') seen.push(event.text)
      }
    })(),
  )
  t.ok(seen.length >= 1, 'some deltas arrived before the cut')
  t.ok(seen.join('').length < 'Echo: Tell me about the weather in Lyon today.'.length, 'not the whole answer')
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: true })
})

t.test('a non-streamed answer cut mid-way becomes a retryable UpstreamError', async (t) => {
  const { mock, adapter } = await setup(t)
  mock.fail('stream-cut')
  const err = await caught(adapter.complete(request, new AbortController().signal))
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: true })
})

t.test('an abort mid-stream closes the upstream request at once and rethrows the abort reason', async (t) => {
  const { mock, adapter } = await setup(t, {}, { slowStreamMs: 5 })
  mock.fail('slow-stream')
  const controller = new AbortController()
  const reason = new Error('client went away')
  const events = adapter.stream(request, controller.signal)[Symbol.asyncIterator]()
  const first = await events.next()
  t.equal(first.done, false)
  const pending = events.next()
  controller.abort(reason)
  t.equal(await caught(pending), reason)
  await mock.whenAborted()
  t.equal(mock.aborted, 1)
})

t.test('an abort while waiting for a non-streamed answer rethrows the abort reason and closes the request', async (t) => {
  const { mock, adapter } = await setup(t)
  mock.fail('slow-first-byte')
  const controller = new AbortController()
  const reason = new Error('client went away')
  const pending = adapter.complete(request, controller.signal)
  await until(() => mock.requests.length > 0, 'the request to reach the provider')
  controller.abort(reason)
  t.equal(await caught(pending), reason)
  await mock.whenAborted()
})

t.test('an upstream keeps its connections alive and fails later requests once closed', async (t) => {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const upstream = createUpstream({ connections: 1, connectTimeoutMs: 1000, firstByteTimeoutMs: 1000, idleTimeoutMs: 1000 })
  const target = {
    label: 'openai',
    origin: mock.url,
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
  }
  const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }] })
  const first = await upstream.post(target, body, new AbortController().signal)
  await first.text()
  const second = await upstream.post(target, body, new AbortController().signal)
  await second.dump()
  t.equal(first.status, 200)
  t.equal(second.status, 200)
  t.equal(mock.requests[0]?.headers.connection, 'keep-alive')
  await upstream.close()
  const err = await caught(upstream.post(target, body, new AbortController().signal))
  t.ok(err instanceof UpstreamError, 'a closed upstream answers with a gateway error')
})
