// The official openai package against the gateway's /v1: completions (JSON and streamed), tools,
// JSON mode, the model list, and the typed errors the SDK raises for the gateway's refusals.
import OpenAI from 'openai'
import t from 'tap'
import { call } from '../../../helpers/http.ts'
import { countingFetch, rejectsWith, startDialectGateway, weatherTool } from './fixtures.ts'

const question = { role: 'user' as const, content: 'What is the weather in Paris?' }

t.test("answers chat.completions.create in OpenAI's shape with the gateway's headers", async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const { data, response } = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], max_tokens: 50 }).withResponse()
  t.equal(data.object, 'chat.completion')
  t.equal(data.model, 'gpt-4o-mini')
  t.equal(data.choices.length, 1)
  t.equal(data.choices[0]!.message.content, 'Echo: What is the weather in Paris?')
  t.equal(data.choices[0]!.finish_reason, 'stop')
  t.ok(data.usage !== undefined && data.usage.total_tokens === data.usage.prompt_tokens + data.usage.completion_tokens)
  t.equal(response.headers.get('x-gateway-model'), 'openai/gpt-4o-mini')
  t.equal(response.headers.get('x-cache-status'), 'MISS')
  t.match(response.headers.get('x-credits-charged'), /^\d+\.\d{6}$/)
  t.match(response.headers.get('x-credits-remaining'), /^\d+\.\d{6}$/)
  t.ok(response.headers.get('x-request-id'))
  t.equal(gw.mock.requests.at(-1)?.path, '/v1/chat/completions')
  t.match(gw.mock.requests.at(-1)?.body, { model: 'gpt-4o-mini', max_completion_tokens: 50 })
  t.notOk('temperature' in (gw.mock.requests.at(-1)!.body as object), 'no temperature the client did not send')

  const deterministic = { model: 'gpt-4o-mini', messages: [question], max_tokens: 50, temperature: 0 }
  await openai.chat.completions.create(deterministic)
  const again = await openai.chat.completions.create(deterministic).withResponse()
  t.equal(again.response.headers.get('x-cache-status'), 'HIT', 'the cache serves the dialect a deterministic request')
  t.equal(again.response.headers.get('x-credits-charged'), '0.000000')
  t.equal(again.data.choices[0]!.message.content, data.choices[0]!.message.content)
})

t.test('streams chunks that end in [DONE], with a usage chunk when include_usage asks', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const stream = await openai.chat.completions.create({
    model: 'frontier',
    messages: [question],
    stream: true,
    stream_options: { include_usage: true },
  })
  const chunks = []
  for await (const chunk of stream) chunks.push(chunk)
  t.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Echo: What is the weather in Paris?')
  t.ok(
    chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4o'),
    'the tier resolves to its model',
  )
  t.equal(chunks.at(-2)?.choices[0]?.finish_reason, 'stop')
  t.same(chunks.at(-1)?.choices, [])
  t.ok((chunks.at(-1)?.usage?.completion_tokens ?? 0) > 0)
  t.equal(chunks.slice(0, -1).filter((c) => c.usage !== null).length, 0, 'only the last chunk carries usage')

  const plain = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Once more' }], stream: true })
  const plainChunks = []
  for await (const chunk of plain) plainChunks.push(chunk)
  t.notOk(
    plainChunks.some((c) => 'usage' in c),
    'no usage without include_usage',
  )
})

t.test('a streamed cache hit replays the answer as chunks', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const body = { model: 'gpt-4o-mini', messages: [question], stream: true as const, temperature: 0 }
  for await (const _chunk of await openai.chat.completions.create(body));
  const { data, response } = await openai.chat.completions.create(body).withResponse()
  let text = ''
  for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? ''
  t.equal(response.headers.get('x-cache-status'), 'HIT')
  t.equal(text, 'Echo: What is the weather in Paris?')
})

for (const model of ['gpt-4o', 'claude-3-haiku-20240307'] as const) {
  t.test(`round-trips a tool call through ${model}`, async (t) => {
    const gw = await startDialectGateway(t)
    const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
    const tools = [{ type: 'function' as const, function: weatherTool }]
    const first = await openai.chat.completions.create({ model, messages: [question], tools, tool_choice: 'auto' })
    const choice = first.choices[0]!
    t.equal(choice.finish_reason, 'tool_calls')
    t.equal(choice.message.content, null)
    const toolCall = choice.message.tool_calls?.[0]
    t.ok(toolCall !== undefined && toolCall.type === 'function')
    if (toolCall?.type !== 'function') return
    t.equal(toolCall.function.name, 'get_weather')
    t.same(JSON.parse(toolCall.function.arguments), { echo: 'What is the weather in Paris?' })

    const second = await openai.chat.completions.create({
      model,
      tools,
      messages: [question, choice.message, { role: 'tool', tool_call_id: toolCall.id, content: 'Sunny, 24 degrees' }],
    })
    t.equal(second.choices[0]!.finish_reason, 'stop')
    t.equal(second.choices[0]!.message.content, 'Echo: Sunny, 24 degrees')
    const sent = gw.mock.requests.at(-1)
    t.equal(sent?.path, model === 'gpt-4o' ? '/v1/chat/completions' : '/v1/messages')
  })
}

t.test("streams a tool call that the SDK's stream helper assembles", async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  for (const model of ['gpt-4o', 'claude-3-haiku-20240307']) {
    const stream = openai.chat.completions.stream({ model, messages: [question], tools: [{ type: 'function', function: weatherTool }] })
    const final = await stream.finalChatCompletion()
    const toolCall = final.choices[0]?.message.tool_calls?.[0]
    t.equal(final.choices[0]?.finish_reason, 'tool_calls', model)
    t.same(toolCall?.type === 'function' ? JSON.parse(toolCall.function.arguments) : undefined, { echo: 'What is the weather in Paris?' }, model)
  }
})

t.test("the local provider answers a tool request with arguments that fit the tool's schema", async (t) => {
  const gw = await startDialectGateway(t)
  // A development key is always served by the local provider.
  const openai = new OpenAI({ apiKey: gw.keys.limited, baseURL: `${gw.url}/v1` })
  const tools = [{ type: 'function' as const, function: weatherTool }]
  const first = await openai.chat.completions.create({ model: 'gpt-4o', messages: [question], tools })
  const toolCall = first.choices[0]?.message.tool_calls?.[0]
  t.ok(toolCall?.type === 'function')
  if (toolCall?.type !== 'function') return
  t.same(JSON.parse(toolCall.function.arguments), { city: 'What is the weather in Paris?', days: 1 })
  const second = await openai.chat.completions.create({
    model: 'gpt-4o',
    tools,
    messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: toolCall.id, content: 'Sunny' }],
  })
  t.equal(second.choices[0]?.finish_reason, 'stop')
  t.ok((second.choices[0]?.message.content ?? '').length > 0)
  t.equal(gw.mock.requests.length, 0, 'nothing went upstream')
})

t.test('json mode: json_object through a provider, json_schema from the local provider', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const object = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], response_format: { type: 'json_object' } })
  t.same(JSON.parse(object.choices[0]!.message.content!), { echo: 'What is the weather in Paris?' })
  t.match(gw.mock.requests.at(-1)?.body, { response_format: { type: 'json_object' } }, 'json_object is passed on')

  const local = new OpenAI({ apiKey: gw.keys.limited, baseURL: `${gw.url}/v1` })
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, sunny: { type: 'boolean' }, tags: { type: 'array', items: { enum: ['a', 'b'] } } },
    required: ['city', 'sunny', 'tags'],
    additionalProperties: false,
  }
  const shaped = await local.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [question],
    response_format: { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } },
  })
  const parsed = JSON.parse(shaped.choices[0]!.message.content!)
  t.same(Object.keys(parsed).sort(), ['city', 'sunny', 'tags'])
  t.equal(parsed.sunny, true)
  t.same(parsed.tags, ['a'])
})

t.test('lists and retrieves models, tiers included', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const ids = []
  for await (const model of openai.models.list()) ids.push(model.id)
  t.ok(ids.includes('gpt-4o') && ids.includes('claude-3-haiku-20240307') && ids.includes('mistral-large-latest'))
  t.ok(ids.includes('cheap') && ids.includes('balanced') && ids.includes('frontier'))
  t.match(await openai.models.retrieve('claude-3-opus-20240229'), { id: 'claude-3-opus-20240229', object: 'model', owned_by: 'anthropic' })
  await rejectsWith(t, openai.models.retrieve('gpt-9-ultra'), OpenAI.NotFoundError)
})

t.test("raises the SDK's typed errors for 400, 401, 402, 403 and 429", async (t) => {
  const gw = await startDialectGateway(t)
  const client = (apiKey: string, options: { maxRetries?: number; fetch?: typeof fetch } = {}) => new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, ...options })
  const create = (openai: OpenAI, extra: Record<string, unknown> = {}) =>
    openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], ...extra })

  await rejectsWith(t, create(client(gw.keys.sk), { n: 2 }), OpenAI.BadRequestError)
  await rejectsWith(t, create(client('sk_prod_wrong')), OpenAI.AuthenticationError)
  await rejectsWith(t, create(client(gw.keys.pk)), OpenAI.PermissionDeniedError)

  const counted = countingFetch()
  const budget = await create(client(gw.keys.broke, { maxRetries: 2, fetch: counted.fetch })).catch((err: unknown) => err)
  t.ok(budget instanceof OpenAI.APIError && budget.status === 402, 'a 402 is an APIError with its status')
  t.equal(counted.count(), 1, 'the SDK does not retry a 402')
  t.equal((budget as InstanceType<typeof OpenAI.APIError>).headers?.get('x-should-retry'), 'false')
  t.match((budget as InstanceType<typeof OpenAI.APIError>).error, { type: 'insufficient_quota', code: 'budget_exceeded', message: /^Budget exceeded: / })

  const limited = client(gw.keys.limited, { maxRetries: 0 })
  await create(limited)
  await create(limited)
  const refused = await create(limited).catch((err: unknown) => err)
  t.ok(refused instanceof OpenAI.RateLimitError)
  const headers = (refused as InstanceType<typeof OpenAI.RateLimitError>).headers
  t.match(headers?.get('retry-after'), /^\d+$/)
  t.equal(headers?.get('retry-after-ms'), String(Number(headers?.get('retry-after')) * 1000))
  t.equal(headers?.get('x-ratelimit-remaining'), '0')
})

t.test("errors on /v1 are in OpenAI's shape, also where no route matches", async (t) => {
  const gw = await startDialectGateway(t)
  const invalid = await call(`${gw.url}/v1/chat/completions`, { key: gw.keys.sk, body: { model: 'gpt-4o', messages: [] } })
  t.equal(invalid.status, 400)
  t.match(invalid.body, { error: { type: 'invalid_request_error', code: 'invalid_request', param: 'messages', message: /at least one message/ } })
  t.equal(invalid.headers['x-should-retry'], 'false')
  const unknownModel = await call(`${gw.url}/v1/chat/completions`, { key: gw.keys.sk, body: { model: 'gpt-9-ultra', messages: [question] } })
  t.match(unknownModel.body, { error: { param: 'model', message: /model must be one of/ } })
  const missing = await call(`${gw.url}/v1/batches`, { key: gw.keys.sk, body: { input_file_id: 'file-1' } })
  t.equal(missing.status, 404)
  t.match(missing.body, { error: { type: 'not_found_error', code: 'not_found' } })
  const withoutVersion = await call(`${gw.url}/chat/completions`, { key: gw.keys.sk, body: { model: 'gpt-4o', messages: [question] } })
  t.equal(withoutVersion.status, 404)
  t.match(withoutVersion.body, { message: /it is at \/v1\/chat\/completions/ }, 'a base URL without /v1 is pointed out')
  const native = await call(`${gw.url}/api/ai/complete`, { body: { messages: [] } })
  t.match(native.body, { error: /^Invalid request/, code: 'invalid_request' }, "the spec's endpoints keep their own shape")
})

t.test('ignores unknown fields and names them in x-gateway-ignored-fields', async (t) => {
  const gw = await startDialectGateway(t)
  const answer = await call(`${gw.url}/v1/chat/completions`, {
    key: gw.keys.sk,
    body: {
      model: 'gpt-4o-mini',
      messages: [question],
      logprobs: true,
      presence_penalty: 0.5,
      max_completion_tokens: 20,
      seed: 7,
      top_p: 0.9,
      stop: 'END',
      user: 'u-1',
    },
  })
  t.equal(answer.status, 200)
  t.equal(answer.headers['x-gateway-ignored-fields'], 'logprobs, presence_penalty')
  t.match(gw.mock.requests.at(-1)?.body, { max_completion_tokens: 20, seed: 7, top_p: 0.9, stop: ['END'], user: 'u-1' })
  t.notOk('logprobs' in (gw.mock.requests.at(-1)!.body as object))
})

t.test('takes roles developer and system, and content as text parts', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const answer = await openai.chat.completions.create({
    model: 'claude-3-haiku-20240307',
    messages: [
      { role: 'developer', content: 'Be brief.' },
      { role: 'system', content: [{ type: 'text', text: 'Answer in English.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: 'there' },
        ],
      },
    ],
  })
  t.equal(answer.choices[0]!.message.content, 'Echo: Hello\nthere')
  t.match(gw.mock.requests.at(-1)?.body, { system: 'Be brief.\n\nAnswer in English.', messages: [{ role: 'user', content: 'Hello\nthere' }] })
})

t.test('passes image parts to a model that takes them and refuses them for one that does not', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const image = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }
  const content = [{ type: 'text' as const, text: 'What is in the picture?' }, image]
  const answer = await openai.chat.completions.create({ model: 'claude-3-haiku-20240307', messages: [{ role: 'user', content }] })
  t.equal(answer.choices[0]!.message.content, 'Echo: What is in the picture?')
  t.match(gw.mock.requests.at(-1)?.body, {
    messages: [{ role: 'user', content: [{ type: 'text' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
  })
  await rejectsWith(t, openai.chat.completions.create({ model: 'mistral-large-latest', messages: [{ role: 'user', content }] }), OpenAI.BadRequestError)
  // The local provider reports the gateway's own count, in which an image weighs what the model's largest image costs.
  const local = new OpenAI({ apiKey: gw.keys.limited, baseURL: `${gw.url}/v1` })
  const counted = await local.chat.completions.create({ model: 'claude-3-haiku-20240307', messages: [{ role: 'user', content }] })
  t.ok((counted.usage?.prompt_tokens ?? 0) >= 1600, "the image counts at the model's largest image")
})

t.test('takes governorMetadata from the x-governor-metadata header', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const metadata = { actionType: 'customer_support', senderId: 'agent-7' }
  const { response } = await openai.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [question] }, { headers: { 'x-governor-metadata': JSON.stringify(metadata) } })
    .withResponse()
  t.equal(response.headers.get('x-governor-validated'), 'true')
  t.match(response.headers.get('x-governor-audit-id'), /\S/)
  await rejectsWith(
    t,
    openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question] }, { headers: { 'x-governor-metadata': '{not json' } }),
    OpenAI.BadRequestError,
  )
})

for (const basePath of ['', '/v1']) {
  t.test(`OPENAI_BASE_URL ${basePath === '' ? 'without' : 'with'} /v1 reaches /v1/chat/completions`, async (t) => {
    const gw = await startDialectGateway(t, { openAiBasePath: basePath, anthropicBasePath: basePath })
    const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
    for (const model of ['gpt-4o', 'mistral-large-latest', 'claude-3-haiku-20240307']) {
      const answer = await openai.chat.completions.create({ model, messages: [question] })
      t.equal(answer.choices[0]!.message.content, 'Echo: What is the weather in Paris?', model)
    }
    t.same(
      gw.mock.requests.map((r) => r.path),
      ['/v1/chat/completions', '/v1/chat/completions', '/v1/messages'],
    )
  })
}
