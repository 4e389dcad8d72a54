import t, { type Test } from 'tap'
import { UpstreamError } from '../../../proxy/errors.ts'
import type { ProviderRequest } from '../../../plugins/router/providers/adapter.ts'
import { createAnthropicAdapter } from '../../../plugins/router/providers/anthropic.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { TEST_KEY, assistant, caught, collect, system, testUpstream, user } from './fixtures.ts'

const signal = new AbortController().signal

function request(overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model: 'claude-3-haiku-20240307',
    messages: [system('Be brief.'), user('Hi.'), assistant('Hello!'), system('Answer in English.'), user('What is the capital of France?')],
    temperature: 0.7,
    maxTokens: 100,
    mode: 'text',
    promptTokens: 20,
    ...overrides,
  }
}

async function setup(t: Test, apiKey = TEST_KEY) {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  return { mock, adapter: createAnthropicAdapter(testUpstream(t), { baseUrl: mock.url, apiKey }) }
}

t.test('moves system messages into the top-level system text and sends the Anthropic headers', async (t) => {
  const { mock, adapter } = await setup(t)
  await adapter.complete(request(), signal)
  const sent = mock.requests.at(-1)
  t.equal(sent?.path, '/v1/messages')
  t.equal(sent?.headers['x-api-key'], TEST_KEY)
  t.equal(sent?.headers['anthropic-version'], '2023-06-01')
  t.equal(sent?.headers.authorization, undefined)
  t.same(sent?.body, {
    model: 'claude-3-haiku-20240307',
    system: 'Be brief.\n\nAnswer in English.',
    messages: [
      { role: 'user', content: 'Hi.' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'What is the capital of France?' },
    ],
    max_tokens: 100,
    temperature: 0.7,
  })
})

t.test('returns the text and the input and output token counts of a non-streamed answer', async (t) => {
  const { adapter } = await setup(t)
  const result = await adapter.complete(request(), signal)
  t.equal(result.text, 'Echo: What is the capital of France?')
  t.same(result.usage, { promptTokens: 26, completionTokens: 9 })
})

t.test('streams text deltas, the stop reason, and usage from message_start and message_delta', async (t) => {
  const { mock, adapter } = await setup(t)
  const events = await collect(adapter.stream(request(), signal))
  t.same(events, [
    { type: 'delta', text: 'Echo: Wha' },
    { type: 'delta', text: 't is the ' },
    { type: 'delta', text: 'capital o' },
    { type: 'delta', text: 'f France?' },
    { type: 'finish', reason: 'stop' },
    { type: 'usage', usage: { promptTokens: 26, completionTokens: 9 } },
  ])
  t.equal((mock.requests.at(-1)?.body as { stream?: unknown }).stream, true)
})

t.test('caps the temperature at Anthropic\'s maximum of 1', async (t) => {
  const { mock, adapter } = await setup(t)
  const result = await adapter.complete(request({ temperature: 2 }), signal)
  t.equal((mock.requests.at(-1)?.body as { temperature?: unknown }).temperature, 1)
  t.equal(result.text, 'Echo: What is the capital of France?')
})

t.test('asks for JSON through the system text in json mode', async (t) => {
  const { mock, adapter } = await setup(t)
  const result = await adapter.complete(request({ mode: 'json', messages: [user('Name a colour.')] }), signal)
  t.match((mock.requests.at(-1)?.body as { system?: unknown }).system, /single valid JSON object/)
  t.same(JSON.parse(result.text), { echo: 'Name a colour.' })
})

t.test('maps an overloaded error event to a retryable UpstreamError', async (t) => {
  const { mock, adapter } = await setup(t)
  mock.fail('stream-error')
  const err = await caught(collect(adapter.stream(request(), signal)))
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: true, message: 'anthropic reported an error in its stream: Overloaded' })
})

t.test('maps a 400 to a non-retryable UpstreamError with Anthropic\'s message', async (t) => {
  const { mock, adapter } = await setup(t)
  mock.fail('bad-request')
  const err = await caught(adapter.complete(request(), signal))
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: false, message: 'anthropic answered 400: The mock refused this request on purpose.' })
})

t.test('maps a rejected key to a non-retryable UpstreamError without the key', async (t) => {
  const { adapter } = await setup(t, 'sk-ant-invalid-0123456789')
  const err = await caught(collect(adapter.stream(request(), signal)))
  t.match(err, { retryable: false, message: 'anthropic answered 401: invalid x-api-key' })
})
