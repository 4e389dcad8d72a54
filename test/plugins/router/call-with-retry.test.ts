import t, { type Test } from 'tap'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import {
  backoffMs,
  completeWithRetry,
  openStreamWithRetry,
  type OpenedStream,
  type CallObserver,
  type Candidate,
  type RequestShape,
  type RetryPolicy,
} from '../../../plugins/router/call-with-retry.ts'
import { createAnthropicAdapter } from '../../../plugins/router/providers/anthropic.ts'
import { createChatCompletionsAdapter } from '../../../plugins/router/providers/chat-completions.ts'
import { startMockUpstream, type MockUpstreamOptions } from '../../helpers/mock-upstream.ts'
import { TEST_KEY, caught, collect, testUpstream, user } from './fixtures.ts'

/** An opened stream's batches, its first one included. */
async function* batchesOf({ first, rest }: OpenedStream) {
  if (first.done === true) return
  yield first.value
  for (let step = await rest.next(); step.done !== true; step = await rest.next()) yield step.value
}

const shape: RequestShape = {
  messages: [user('Summarise the quarterly report.')],
  temperature: 0.7,
  maxTokens: 100,
  mode: 'text',
  promptTokens: 12,
}

const catalog = modelCatalog()
const noDelay: RetryPolicy = { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 }

function recorder() {
  const failures: string[] = []
  const served: string[] = []
  const observer: CallObserver = {
    onAttemptFailed: (candidate, attempt, error) => {
      failures.push(`${candidate.model}#${attempt}: ${error.message}`)
    },
    onServed: (candidate) => {
      served.push(`${candidate.provider}/${candidate.model}`)
    },
  }
  return { observer, failures, served }
}

async function setup(t: Test, mockOptions: MockUpstreamOptions = {}) {
  const mock = await startMockUpstream(mockOptions)
  t.teardown(() => mock.close())
  const upstream = testUpstream(t)
  const primary: Candidate = {
    provider: 'openai',
    model: 'gpt-4o-mini',
    info: catalog.info('gpt-4o-mini'),
    adapter: createChatCompletionsAdapter(upstream, {
      label: 'openai',
      baseUrl: mock.url,
      apiKey: TEST_KEY,
      asksForStreamUsage: true,
      maxTemperature: 2,
      catalog,
    }),
  }
  const fallback: Candidate = {
    provider: 'anthropic',
    model: 'claude-3-haiku-20240307',
    info: catalog.info('claude-3-haiku-20240307'),
    adapter: createAnthropicAdapter(upstream, { baseUrl: mock.url, apiKey: TEST_KEY, catalog }),
  }
  return { mock, primary, fallback }
}

t.test('retries a 5xx once and returns the second answer', async (t) => {
  const { mock, primary } = await setup(t)
  const { observer, failures, served } = recorder()
  mock.fail('server-error')
  const result = await completeWithRetry([primary], shape, noDelay, new AbortController().signal, observer)
  t.equal(result.text, 'Echo: Summarise the quarterly report.')
  t.equal(mock.requests.length, 2)
  t.same(failures, ['gpt-4o-mini#0: openai answered 500: The server had an error while processing your request.'])
  t.same(served, ['openai/gpt-4o-mini'])
})

t.test('retries a 429 and a connection reset', async (t) => {
  const { mock, primary } = await setup(t)
  mock.fail('rate-limit')
  mock.fail('reset')
  const result = await completeWithRetry([primary], shape, noDelay, new AbortController().signal, recorder().observer)
  t.equal(result.text, 'Echo: Summarise the quarterly report.')
  t.equal(mock.requests.length, 3)
})

t.test('leaves a 429 that asks for a longer wait than the longest backoff to the next candidate, then to the client', async (t) => {
  const { mock, primary, fallback } = await setup(t, { rateLimitRetryAfterS: 3 })
  const { observer, served } = recorder()
  mock.fail('rate-limit')
  const result = await completeWithRetry([primary, fallback], shape, { attempts: 2, baseDelayMs: 0, maxDelayMs: 2000 }, new AbortController().signal, observer)
  t.equal(result.text, 'Echo: Summarise the quarterly report.')
  t.same(
    mock.requests.map((r) => r.path),
    ['/v1/chat/completions', '/v1/messages'],
    'the same model is not tried again',
  )
  t.same(served, ['anthropic/claude-3-haiku-20240307'])

  mock.fail('rate-limit')
  const err = await caught(completeWithRetry([primary], shape, { attempts: 2, baseDelayMs: 0, maxDelayMs: 2000 }, new AbortController().signal, observer))
  t.match(err, { status: 429, gatewayRetried: false })
  t.equal((err as UpstreamError).clientMayRetry(), true, 'tried once: the client may retry after the wait')
  t.equal(mock.requests.length, 3)
})

t.test('waits out a short retry-after before retrying, and then tells the client not to retry', async (t) => {
  const { mock, primary } = await setup(t, { rateLimitRetryAfterS: 0.2 })
  mock.fail('rate-limit', 3)
  const started = performance.now()
  const err = await caught(
    completeWithRetry([primary], shape, { attempts: 2, baseDelayMs: 0, maxDelayMs: 2000 }, new AbortController().signal, recorder().observer),
  )
  t.ok(performance.now() - started >= 2 * 200 - 10, "each retry waited at least the provider's retry-after")
  t.equal(mock.requests.length, 3)
  t.match(err, { status: 429, gatewayRetried: true })
  t.equal((err as UpstreamError).clientMayRetry(), false)
  t.same((err as UpstreamError).headers(), { 'retry-after': '1', 'retry-after-ms': '200' })
})

t.test('does not retry a 4xx from the provider', async (t) => {
  const { mock, primary, fallback } = await setup(t)
  const { observer, served } = recorder()
  mock.fail('bad-request')
  const err = await caught(completeWithRetry([primary, fallback], shape, noDelay, new AbortController().signal, observer))
  t.ok(err instanceof UpstreamError)
  t.equal((err as UpstreamError).retryable, false)
  t.equal(mock.requests.length, 1, 'neither retried nor passed to the fallback')
  t.same(served, [])
})

t.test('gives up after the configured retries and throws the last error', async (t) => {
  const { mock, primary } = await setup(t)
  const { observer, failures } = recorder()
  mock.fail('server-error', 3)
  const err = await caught(completeWithRetry([primary], shape, noDelay, new AbortController().signal, observer))
  t.match(err, { retryable: true, message: /answered 500/ })
  t.equal(mock.requests.length, 3, 'the first try and two retries')
  t.equal(failures.length, 3)
})

t.test("tries the fallback model once the primary's retries are exhausted", async (t) => {
  const { mock, primary, fallback } = await setup(t)
  const { observer, served } = recorder()
  mock.fail('server-error', 3)
  const result = await completeWithRetry([primary, fallback], shape, noDelay, new AbortController().signal, observer)
  t.equal(result.text, 'Echo: Summarise the quarterly report.')
  t.same(
    mock.requests.map((r) => r.path),
    ['/v1/chat/completions', '/v1/chat/completions', '/v1/chat/completions', '/v1/messages'],
  )
  t.same(served, ['anthropic/claude-3-haiku-20240307'])
})

t.test('retries a stream that fails before its first event and tells which candidate served', async (t) => {
  const { mock, primary, fallback } = await setup(t)
  const { observer, served } = recorder()
  mock.fail('server-error', 3)
  mock.fail('stream-error')
  const events = await collect(batchesOf(await openStreamWithRetry([primary, fallback], shape, noDelay, new AbortController().signal, observer)))
  t.equal(events.map((e) => (e.type === 'delta' ? e.text : '')).join(''), 'Echo: Summarise the quarterly report.')
  t.equal(mock.requests.length, 5, 'three tries of the primary, two of the fallback')
  t.same(served, ['anthropic/claude-3-haiku-20240307'])
})

t.test('does not retry a stream that fails after its first event', async (t) => {
  const { mock, primary } = await setup(t)
  mock.fail('stream-cut')
  const seen: string[] = []
  const err = await caught(
    (async () => {
      const opened = await openStreamWithRetry([primary], shape, noDelay, new AbortController().signal, recorder().observer)
      for await (const batch of batchesOf(opened)) {
        for (const event of batch) if (event.type === 'delta') seen.push(event.text)
      }
    })(),
  )
  t.ok(err instanceof UpstreamError)
  t.ok(seen.length > 0, 'the events that arrived were passed on')
  t.equal(mock.requests.length, 1)
})

t.test('rethrows the abort reason at once when aborted during a backoff', async (t) => {
  const { mock, primary } = await setup(t)
  mock.fail('server-error')
  const controller = new AbortController()
  const reason = new Error('client went away')
  const observer: CallObserver = {
    onAttemptFailed: () => controller.abort(reason),
    onServed: () => t.fail('no candidate should serve'),
  }
  const slow: RetryPolicy = { attempts: 2, baseDelayMs: 60_000, maxDelayMs: 60_000 }
  const started = performance.now()
  t.equal(await caught(completeWithRetry([primary], shape, slow, controller.signal, observer)), reason)
  t.ok(performance.now() - started < 1000, 'the minute-long backoff was cut short')
  t.equal(mock.requests.length, 1)
})

t.test('backs off exponentially up to the maximum, with jitter in the upper half', async (t) => {
  const policy: RetryPolicy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 }
  for (const [retry, ceiling] of [
    [0, 100],
    [1, 200],
    [2, 400],
    [3, 800],
    [4, 1000],
    [9, 1000],
  ] as const) {
    const delays = Array.from({ length: 50 }, () => backoffMs(retry, policy))
    t.ok(
      delays.every((delay) => delay >= ceiling / 2 && delay <= ceiling),
      `retry ${retry} waits between ${ceiling / 2} and ${ceiling} ms`,
    )
  }
  t.equal(backoffMs(3, noDelay), 0)
})
