import t, { type Test } from 'tap'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
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
  return { mock, adapter: createAnthropicAdapter(testUpstream(t), { baseUrl: mock.url, apiKey, catalog: modelCatalog() }) }
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
  t.equal((mock.requests.at(-1)!.body as { stream?: unknown }).stream, true)
})

t.test("sends no temperature the request does not set, and the model's longest answer as the max_tokens Anthropic needs", async (t) => {
  const { mock, adapter } = await setup(t)
  await adapter.complete(request({ model: 'claude-3-5-sonnet-20241022', temperature: undefined, maxTokens: undefined }), signal)
  const sent = mock.requests.at(-1)!.body as Record<string, unknown>
  t.notOk('temperature' in sent)
  t.equal(sent.max_tokens, 8192)
})

t.test("caps the temperature at Anthropic's maximum of 1", async (t) => {
  const { mock, adapter } = await setup(t)
  const result = await adapter.complete(request({ temperature: 2 }), signal)
  t.equal((mock.requests.at(-1)!.body as { temperature?: unknown }).temperature, 1)
  t.equal(result.text, 'Echo: What is the capital of France?')
})

t.test('asks for JSON through the system text in json mode', async (t) => {
  const { mock, adapter } = await setup(t)
  const result = await adapter.complete(request({ mode: 'json', messages: [user('Name a colour.')] }), signal)
  t.match((mock.requests.at(-1)!.body as { system?: unknown }).system, /single valid JSON object/)
  t.same(JSON.parse(result.text), { echo: 'Name a colour.' })
})

t.test('maps an overloaded error event to a retryable UpstreamError', async (t) => {
  const { mock, adapter } = await setup(t)
  mock.fail('stream-error')
  const err = await caught(collect(adapter.stream(request(), signal)))
  t.ok(err instanceof UpstreamError)
  t.match(err, { retryable: true, message: 'anthropic reported an error in its stream: Overloaded' })
})

t.test("maps a 400 to a non-retryable UpstreamError with Anthropic's message", async (t) => {
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

const tool = { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }

t.test("sends tool results in user turns beside the user's text, tool calls as tool_use blocks, and images as sources", async (t) => {
  const { mock, adapter } = await setup(t)
  await adapter.complete(
    request({
      messages: [
        user('Weather in Oslo and Bergen?'),
        {
          role: 'assistant',
          content: 'Checking.',
          toolCalls: [
            { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
            { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Bergen"}' },
          ],
        },
        { role: 'tool', content: 'Sunny', toolCallId: 'toolu_1' },
        { role: 'tool', content: 'Rain', toolCallId: 'toolu_2' },
        {
          role: 'user',
          content: 'Compare them with these.',
          parts: [
            { type: 'text', text: 'Compare them with these.' },
            { type: 'image', url: 'data:image/png;base64,AAAA' },
            { type: 'image', url: 'https://img.example/b.jpg' },
          ],
        },
      ],
      tools: [tool],
      toolChoice: 'required',
      topP: 0.9,
      stop: ['END'],
      user: 'u-1',
    }),
    signal,
  )
  t.match(mock.requests.at(-1)?.body, {
    messages: [
      { role: 'user', content: 'Weather in Oslo and Bergen?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Bergen' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'Rain' },
          { type: 'text', text: 'Compare them with these.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          { type: 'image', source: { type: 'url', url: 'https://img.example/b.jpg' } },
        ],
      },
    ],
    tools: [{ name: 'get_weather', description: 'Weather', input_schema: tool.parameters }],
    tool_choice: { type: 'any' },
    top_p: 0.9,
    stop_sequences: ['END'],
    metadata: { user_id: 'u-1' },
  })
  t.equal((mock.requests.at(-1)!.body as { messages: unknown[] }).messages.length, 3)
})

t.test('puts a json_schema into the system instruction', async (t) => {
  const { mock, adapter } = await setup(t)
  const schema = { type: 'object', properties: { colour: { type: 'string' } } }
  await adapter.complete(request({ mode: 'json', jsonSchema: { name: 'c', schema }, messages: [user('Name a colour.')] }), signal)
  t.match((mock.requests.at(-1)!.body as { system?: string }).system, JSON.stringify(schema))
})

t.test('returns tool_use blocks as tool calls, whole or streamed', async (t) => {
  const { adapter } = await setup(t)
  const result = await adapter.complete(request({ tools: [tool], messages: [user('Oslo')] }), signal)
  t.same(result, {
    text: '',
    toolCalls: [{ id: 'toolu_mock', name: 'get_weather', arguments: '{"echo":"Oslo"}' }],
    finishReason: 'tool_calls',
    usage: { promptTokens: 4, completionTokens: 4 },
  })
  const events = await collect(adapter.stream(request({ tools: [tool], messages: [user('Oslo')] }), signal))
  const pieces = events.flatMap((e) => (e.type === 'tool_call' ? [e.delta] : []))
  t.same(pieces[0], { index: 0, id: 'toolu_mock', name: 'get_weather', arguments: '' })
  t.equal(pieces.map((p) => p.arguments).join(''), '{"echo":"Oslo"}')
  t.same(
    events.find((e) => e.type === 'finish'),
    { type: 'finish', reason: 'tool_calls' },
  )
})
