// The official @anthropic-ai/sdk against the gateway: messages (JSON and streamed) to Claude and,
// translated, to other models; tools both ways; count_tokens; and the typed errors it raises.
import Anthropic from '@anthropic-ai/sdk'
import t from 'tap'
import { call, parseSse } from '../../../helpers/http.ts'
import { countingFetch, rejectsWith, startDialectGateway, weatherTool } from './fixtures.ts'

const question = { role: 'user' as const, content: 'What is the weather in Paris?' }
const tool = { name: weatherTool.name, description: weatherTool.description, input_schema: weatherTool.parameters }

t.test("answers messages.create in Anthropic's shape, from Anthropic for a Claude model", async (t) => {
  const gw = await startDialectGateway(t)
  const anthropic = new Anthropic({ apiKey: gw.keys.sk, baseURL: gw.url })
  const { data, response } = await anthropic.messages
    .create({
      model: 'claude-3-haiku-20240307',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [question],
    })
    .withResponse()
  t.match(data, {
    type: 'message',
    role: 'assistant',
    model: 'claude-3-haiku-20240307',
    content: [{ type: 'text', text: 'Echo: What is the weather in Paris?' }],
    stop_reason: 'end_turn',
  })
  t.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0)
  t.equal(response.headers.get('x-gateway-model'), 'anthropic/claude-3-haiku-20240307')
  t.match(response.headers.get('x-credits-charged'), /^\d+\.\d{6}$/)
  const sent = gw.mock.requests.at(-1)
  t.equal(sent?.path, '/v1/messages')
  t.equal(sent?.headers['x-api-key'], 'sk-ant-upstream', 'the gateway calls upstream with its own key')
  t.match(sent?.body, { system: 'Be brief.', messages: [question], max_tokens: 100 })
})

t.test('translates a request for another configured model', async (t) => {
  const gw = await startDialectGateway(t)
  const anthropic = new Anthropic({ apiKey: gw.keys.sk, baseURL: gw.url })
  const message = await anthropic.messages.create({ model: 'gpt-4o-mini', max_tokens: 100, system: 'Be brief.', messages: [question] })
  t.match(message, { model: 'gpt-4o-mini', content: [{ type: 'text', text: 'Echo: What is the weather in Paris?' }], stop_reason: 'end_turn' })
  t.equal(gw.mock.requests.at(-1)?.path, '/v1/chat/completions')
  t.match(gw.mock.requests.at(-1)?.body, { messages: [{ role: 'system', content: 'Be brief.' }, question], max_completion_tokens: 100 })
})

t.test("streams Anthropic's events, which the SDK's MessageStream assembles", async (t) => {
  const gw = await startDialectGateway(t)
  const anthropic = new Anthropic({ apiKey: gw.keys.sk, baseURL: gw.url })
  for (const model of ['claude-3-haiku-20240307', 'mistral-large-latest']) {
    const stream = anthropic.messages.stream({ model, max_tokens: 100, messages: [question] })
    let text = ''
    stream.on('text', (piece) => {
      text += piece
    })
    const final = await stream.finalMessage()
    t.equal(text, 'Echo: What is the weather in Paris?', model)
    t.match(final, { model, content: [{ type: 'text', text }], stop_reason: 'end_turn' }, model)
    t.ok(final.usage.output_tokens > 0, model)
  }
  const raw = await call(`${gw.url}/v1/messages`, {
    key: gw.keys.sk,
    body: { model: 'claude-3-haiku-20240307', max_tokens: 50, stream: true, messages: [question] },
  })
  const types = parseSse(raw.body as string).map((event) => event.event)
  t.same(
    [types[0], types[1], types.at(-3), types.at(-2), types.at(-1)],
    ['message_start', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop'],
  )
})

for (const model of ['claude-3-haiku-20240307', 'gpt-4o'] as const) {
  t.test(`round-trips a tool use through ${model}`, async (t) => {
    const gw = await startDialectGateway(t)
    const anthropic = new Anthropic({ apiKey: gw.keys.sk, baseURL: gw.url })
    const first = await anthropic.messages.create({ model, max_tokens: 200, messages: [question], tools: [tool] })
    t.equal(first.stop_reason, 'tool_use')
    const use = first.content.find((block) => block.type === 'tool_use')
    t.ok(use !== undefined && use.type === 'tool_use')
    if (use?.type !== 'tool_use') return
    t.equal(use.name, 'get_weather')
    t.same(use.input, { echo: 'What is the weather in Paris?' })

    const second = await anthropic.messages.create({
      model,
      max_tokens: 200,
      tools: [tool],
      messages: [
        question,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny, 24 degrees' }] },
      ],
    })
    t.equal(second.stop_reason, 'end_turn')
    t.match(second.content, [{ type: 'text', text: 'Echo: Sunny, 24 degrees' }])

    const streamed = await anthropic.messages.stream({ model, max_tokens: 200, messages: [question], tools: [tool] }).finalMessage()
    t.equal(streamed.stop_reason, 'tool_use')
    t.match(streamed.content, [{ type: 'tool_use', name: 'get_weather', input: { echo: 'What is the weather in Paris?' } }])
  })
}

t.test("counts a request's tokens as the gateway does for routing and budgets", async (t) => {
  const gw = await startDialectGateway(t)
  const anthropic = new Anthropic({ apiKey: gw.keys.sk, baseURL: gw.url })
  const plain = await anthropic.messages.countTokens({ model: 'claude-3-haiku-20240307', messages: [question] })
  t.ok(plain.input_tokens > 4 && plain.input_tokens < 30, `${plain.input_tokens} tokens`)
  const withTools = await anthropic.messages.countTokens({ model: 'claude-3-haiku-20240307', messages: [question], tools: [tool] })
  t.ok(withTools.input_tokens > plain.input_tokens + 530, 'tool definitions and the tool prompt count')
  const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' } }
  const withImage = await anthropic.messages.countTokens({
    model: 'claude-3-haiku-20240307',
    messages: [{ role: 'user', content: [image, { type: 'text', text: 'What is this?' }] }],
  })
  t.ok(withImage.input_tokens >= 1600, "an image counts at the model's largest image")
  t.equal(gw.mock.requests.length, 0, 'no model is called')
  await rejectsWith(
    t,
    anthropic.messages.countTokens({ model: 'mistral-large-latest', messages: [{ role: 'user', content: [image] }] }),
    Anthropic.BadRequestError,
  )
})

t.test("raises the SDK's typed errors for 400, 401, 402, 403 and 429", async (t) => {
  const gw = await startDialectGateway(t)
  const client = (apiKey: string, options: { maxRetries?: number; fetch?: typeof fetch } = {}) => new Anthropic({ apiKey, baseURL: gw.url, ...options })
  const create = (anthropic: Anthropic, model = 'claude-3-haiku-20240307') => anthropic.messages.create({ model, max_tokens: 50, messages: [question] })

  const invalid = await rejectsWith(t, create(client(gw.keys.sk), 'claude-9'), Anthropic.BadRequestError)
  t.match(invalid?.error, { type: 'error', error: { type: 'invalid_request_error', message: /model must be one of/ } })
  await rejectsWith(t, create(client('sk_prod_wrong')), Anthropic.AuthenticationError)
  await rejectsWith(t, create(client(gw.keys.pk)), Anthropic.PermissionDeniedError)

  const counted = countingFetch()
  const budget = await rejectsWith(t, create(client(gw.keys.broke, { maxRetries: 2, fetch: counted.fetch })), Anthropic.PaymentRequiredError)
  t.match(budget?.error, { type: 'error', error: { type: 'billing_error' } })
  t.equal(counted.count(), 1, 'the SDK does not retry a 402')

  const limited = client(gw.keys.limited, { maxRetries: 0 })
  await create(limited)
  await create(limited)
  const refused = await rejectsWith(t, create(limited), Anthropic.RateLimitError)
  t.match(refused?.headers?.get('retry-after-ms'), /^\d+$/)
})

t.test('takes the key as a bearer token and accepts anthropic-version', async (t) => {
  const gw = await startDialectGateway(t)
  const anthropic = new Anthropic({ authToken: gw.keys.sk, apiKey: null, baseURL: gw.url, defaultHeaders: { 'anthropic-version': '2023-06-01' } })
  const message = await anthropic.messages.create({ model: 'cheap', max_tokens: 50, messages: [question] })
  t.equal(message.model, 'claude-3-haiku-20240307', "the tier name resolves like on the spec's endpoints")
})

t.test("errors on /v1/messages are in Anthropic's shape, also for a wrong method", async (t) => {
  const gw = await startDialectGateway(t)
  const missingKey = await call(`${gw.url}/v1/messages`, { body: { model: 'cheap', max_tokens: 10, messages: [question] } })
  t.equal(missingKey.status, 401)
  t.match(missingKey.body, { type: 'error', error: { type: 'authentication_error', message: /^Missing API key/ } })
  const wrongMethod = await call(`${gw.url}/v1/messages`, { method: 'GET', key: gw.keys.sk })
  t.equal(wrongMethod.status, 405)
  t.match(wrongMethod.body, { type: 'error', error: { type: 'invalid_request_error' } })
  const serverTool = await call(`${gw.url}/v1/messages`, {
    key: gw.keys.sk,
    body: { model: 'cheap', max_tokens: 10, messages: [question], tools: [{ type: 'web_search_20250305', name: 'web_search' }] },
  })
  t.equal(serverTool.status, 400)
  t.match(serverTool.body, { error: { message: /only client tools/ } })
})
