import t, { type Test } from 'tap'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import type { ModelName } from '../../../proxy/pipeline/models.ts'
import type { ProviderRequest } from '../../../plugins/router/providers/adapter.ts'
import { createChatCompletionsAdapter } from '../../../plugins/router/providers/chat-completions.ts'
import { startMockUpstream, type MockUpstream } from '../../helpers/mock-upstream.ts'
import { TEST_KEY, caught, collect, system, testUpstream, user } from './fixtures.ts'

const signal = new AbortController().signal

function request(model: ModelName, overrides: Partial<ProviderRequest> = {}): ProviderRequest {
  return {
    model,
    messages: [system('Be brief.'), user('What is the capital of France?')],
    temperature: 0.7,
    maxTokens: 100,
    mode: 'text',
    promptTokens: 20,
    ...overrides,
  }
}

async function setup(t: Test, label: 'openai' | 'mistral', options: { apiKey?: string; path?: string } = {}) {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const adapter = createChatCompletionsAdapter(testUpstream(t), {
    label,
    baseUrl: `${mock.url}${options.path ?? ''}`,
    apiKey: options.apiKey ?? TEST_KEY,
    asksForStreamUsage: label === 'openai',
    maxTemperature: label === 'openai' ? 2 : 1,
    catalog: modelCatalog(),
  })
  return { mock, adapter }
}

function lastBody(mock: MockUpstream): Record<string, unknown> {
  return mock.requests.at(-1)!.body as Record<string, unknown>
}

t.test('returns the text and usage figures of a non-streamed OpenAI answer', async (t) => {
  const { adapter } = await setup(t, 'openai')
  const result = await adapter.complete(request('gpt-4o-mini'), signal)
  t.equal(result.text, 'Echo: What is the capital of France?')
  t.same(result.usage, { promptTokens: 16, completionTokens: 9 })
})

t.test('sends the Chat Completions request shape with a bearer key', async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  await adapter.complete(request('gpt-4o', { temperature: 1.4, maxTokens: 77 }), signal)
  const sent = mock.requests.at(-1)
  t.equal(sent?.path, '/v1/chat/completions')
  t.equal(sent?.headers.authorization, `Bearer ${TEST_KEY}`)
  t.same(sent?.body, {
    model: 'gpt-4o',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is the capital of France?' },
    ],
    temperature: 1.4,
    max_completion_tokens: 77,
    stream: false,
  })
})

t.test('sends no temperature and no bound the request does not set, so the provider applies its own', async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  const result = await adapter.complete(request('gpt-5', { temperature: undefined, maxTokens: undefined }), signal)
  t.equal(result.text, 'Echo: What is the capital of France?', 'a reasoning model answers what it is sent')
  t.notOk('temperature' in lastBody(mock))
  t.notOk('max_tokens' in lastBody(mock))
  t.notOk('max_completion_tokens' in lastBody(mock))
})

t.test('Mistral takes the bound as max_tokens', async (t) => {
  const { mock, adapter } = await setup(t, 'mistral')
  await adapter.complete(request('mistral-small-latest', { maxTokens: 30 }), signal)
  t.equal(lastBody(mock).max_tokens, 30)
  t.notOk('max_completion_tokens' in lastBody(mock))
})

t.test('streams OpenAI deltas in order, the finish reason, then the usage it asked for with stream_options', async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  const events = await collect(adapter.stream(request('gpt-4o-mini'), signal))
  t.same(events, [
    { type: 'delta', text: 'Echo: Wha' },
    { type: 'delta', text: 't is the ' },
    { type: 'delta', text: 'capital o' },
    { type: 'delta', text: 'f France?' },
    { type: 'finish', reason: 'stop' },
    { type: 'usage', usage: { promptTokens: 16, completionTokens: 9 } },
  ])
  t.same(lastBody(mock).stream_options, { include_usage: true })
  t.equal(lastBody(mock).stream, true)
})

t.test('a stream written in one piece reaches the gateway as one batch of events, not event by event', async (t) => {
  const { adapter } = await setup(t, 'openai')
  const batches: (readonly unknown[])[] = []
  for await (const batch of adapter.stream(request('gpt-4o-mini'), signal)) batches.push(batch)
  t.equal(batches.length, 1, 'the mock writes the whole stream at once')
  t.equal(batches[0]?.length, 6)
})

t.test('streams Mistral deltas and takes usage from its last chunk without sending stream_options', async (t) => {
  const { mock, adapter } = await setup(t, 'mistral')
  const events = await collect(adapter.stream(request('mistral-large-latest'), signal))
  t.equal(
    events
      .filter((e) => e.type === 'delta')
      .map((e) => e.type === 'delta' && e.text)
      .join(''),
    'Echo: What is the capital of France?',
  )
  t.same(events.at(-1), { type: 'usage', usage: { promptTokens: 16, completionTokens: 9 } })
  t.notOk('stream_options' in lastBody(mock), 'Mistral rejects stream_options')
})

t.test("caps the temperature at Mistral's maximum", async (t) => {
  const { mock, adapter } = await setup(t, 'mistral')
  await adapter.complete(request('mistral-medium-latest', { temperature: 1.8 }), signal)
  t.equal(lastBody(mock).temperature, 1)
})

t.test('asks for a JSON object with response_format and a system instruction in json mode', async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  const result = await adapter.complete(request('gpt-4o-mini', { mode: 'json' }), signal)
  t.same(JSON.parse(result.text), { echo: 'What is the capital of France?' })
  const body = lastBody(mock)
  t.same(body.response_format, { type: 'json_object' })
  t.match((body.messages as { role: string; content: string }[])[0], { role: 'system', content: /JSON/ })
})

t.test('appends the API path to a base URL that carries a path prefix', async (t) => {
  const { mock, adapter } = await setup(t, 'openai', { path: '/proxy/openai/' })
  await adapter.complete(request('gpt-4o-mini'), signal)
  t.equal(mock.requests.at(-1)?.path, '/proxy/openai/v1/chat/completions')
})

t.test("maps a 400 to a non-retryable UpstreamError that carries the provider's message", async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  mock.fail('bad-request')
  const err = await caught(adapter.complete(request('gpt-4o-mini'), signal))
  t.ok(err instanceof UpstreamError)
  t.equal((err as UpstreamError).retryable, false)
  t.equal((err as UpstreamError).message, 'openai answered 400: The mock refused this request on purpose.')
})

t.test('maps a 500 and a 429 to retryable UpstreamErrors', async (t) => {
  const { mock, adapter } = await setup(t, 'mistral')
  mock.fail('server-error')
  mock.fail('rate-limit')
  const serverError = await caught(adapter.complete(request('mistral-large-latest'), signal))
  const rateLimited = await caught(collect(adapter.stream(request('mistral-large-latest'), signal)))
  t.match(serverError, { retryable: true, message: /^mistral answered 500: / })
  t.match(rateLimited, { retryable: true, message: /^mistral answered 429: Rate limit/ })
  t.ok(serverError instanceof UpstreamError && rateLimited instanceof UpstreamError)
})

t.test('keeps the API key out of the message of a 401', async (t) => {
  const key = 'sk-invalid-key-abcdef123456'
  const { adapter } = await setup(t, 'openai', { apiKey: key })
  const err = await caught(adapter.complete(request('gpt-4o-mini'), signal))
  t.match(err, { retryable: false, message: /^openai answered 401: Incorrect API key provided: \[redacted\]/ })
  t.notMatch((err as Error).message, /sk-inv|3456/)
})

t.test('throws a retryable UpstreamError when the provider reports an error inside the stream', async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  mock.fail('stream-error')
  const err = await caught(collect(adapter.stream(request('gpt-4o-mini'), signal)))
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: true, message: /reported an error in its stream: The server had an error/ })
})

const tool = { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }
const toolTurn = [
  user('Weather in Oslo?'),
  { role: 'assistant' as const, content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
  { role: 'tool' as const, content: 'Sunny', toolCallId: 'call_1' },
]

t.test('sends tools, tool calls, tool results, images and sampling options in the Chat Completions shape', async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  await adapter.complete(
    request('gpt-4o', {
      messages: [
        ...toolTurn,
        {
          role: 'user',
          content: 'And this?',
          parts: [
            { type: 'text', text: 'And this?' },
            { type: 'image', url: 'https://img.example/a.png', detail: 'low' },
          ],
        },
      ],
      tools: [tool],
      toolChoice: { name: 'get_weather' },
      topP: 0.5,
      stop: ['END'],
      seed: 3,
      user: 'u-1',
    }),
    signal,
  )
  t.match(lastBody(mock), {
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And this?' },
          { type: 'image_url', image_url: { url: 'https://img.example/a.png', detail: 'low' } },
        ],
      },
    ],
    tools: [{ type: 'function', function: tool }],
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    top_p: 0.5,
    stop: ['END'],
    seed: 3,
    user: 'u-1',
  })
})

t.test("speaks Mistral's words for a required tool and a seed, and sends no user", async (t) => {
  const { mock, adapter } = await setup(t, 'mistral')
  await adapter.complete(request('mistral-large-latest', { tools: [tool], toolChoice: 'required', seed: 3, user: 'u-1' }), signal)
  const body = lastBody(mock)
  t.equal(body.tool_choice, 'any')
  t.equal(body.random_seed, 3)
  t.notOk('seed' in body || 'user' in body)
})

t.test('asks for a json_schema answer with the schema', async (t) => {
  const { mock, adapter } = await setup(t, 'openai')
  const schema = { type: 'object', properties: { a: { type: 'string' } } }
  await adapter.complete(request('gpt-4o', { mode: 'json', jsonSchema: { name: 'answer', schema, strict: true } }), signal)
  t.same(lastBody(mock).response_format, { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } })
})

t.test('returns the tool calls of an answer, whole or streamed', async (t) => {
  const { adapter } = await setup(t, 'openai')
  const result = await adapter.complete(request('gpt-4o', { tools: [tool], messages: [user('Oslo')] }), signal)
  t.same(result, {
    text: '',
    usage: { promptTokens: 4, completionTokens: 4 },
    toolCalls: [{ id: 'call_mock', name: 'get_weather', arguments: '{"echo":"Oslo"}' }],
    finishReason: 'tool_calls',
  })
  const events = await collect(adapter.stream(request('gpt-4o', { tools: [tool], messages: [user('Oslo')] }), signal))
  const pieces = events.flatMap((e) => (e.type === 'tool_call' ? [e.delta] : []))
  t.same(pieces[0], { index: 0, id: 'call_mock', name: 'get_weather', arguments: '' })
  t.equal(pieces.map((p) => p.arguments).join(''), '{"echo":"Oslo"}')
  t.same(
    events.find((e) => e.type === 'finish'),
    { type: 'finish', reason: 'tool_calls' },
  )
})
