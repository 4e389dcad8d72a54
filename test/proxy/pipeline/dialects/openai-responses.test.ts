// The official openai package's responses.create and responses.stream against the gateway's /v1:
// text and function calls from a provider (the mock upstream, through Chat Completions) and from
// the local provider, as JSON and as the typed events the SDK's stream helper accumulates,
// metered, governed on the inputs and the answer, and refused as OpenAI refuses.
import OpenAI from 'openai'
import t from 'tap'
import { call } from '../../../helpers/http.ts'
import { startAnswerUpstream } from '../../../plugins/governor/answer-upstream.ts'
import { governedGateway, SENSITIVE } from '../../../plugins/governor/fixtures.ts'
import { refused, startDialectGateway, startLocalGateway, weatherTool } from './fixtures.ts'

const question = 'What is the weather in Paris?'
const tools = [{ type: 'function' as const, ...weatherTool, strict: false }]

t.test("a text input with instructions is answered as a response object, through the provider's chat API, and metered", async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const { data, response } = await openai.responses
    .create({ model: 'gpt-4o-mini', input: question, instructions: 'Be brief.', max_output_tokens: 50 })
    .withResponse()
  t.equal(data.object, 'response')
  t.match(data.id, /^resp_/)
  t.equal(data.status, 'completed')
  t.equal(data.model, 'gpt-4o-mini')
  t.equal(data.output_text, `Echo: ${question}`)
  t.match(data.output, [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `Echo: ${question}` }] }])
  t.equal(data.instructions, 'Be brief.')
  t.ok(
    data.usage !== undefined &&
      data.usage !== null &&
      data.usage.total_tokens === data.usage.input_tokens + data.usage.output_tokens &&
      data.usage.output_tokens > 0,
  )
  t.match(response.headers.get('x-credits-charged'), /^\d+\.\d{6}$/)
  t.match(gw.mock.requests.at(-1), {
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o-mini',
      max_completion_tokens: 50,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: question },
      ],
    },
  })

  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.keys.sk })
  t.match(usage.body.models['gpt-4o-mini'], { requests: 1, tokens: data.usage!.total_tokens })
})

t.test("streams the typed events in order, which the SDK's stream helper accumulates into the response", async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const stream = openai.responses.stream({ model: 'gpt-4o', input: [{ role: 'user', content: [{ type: 'input_text', text: question }] }] })
  const types: string[] = []
  const sequence: number[] = []
  for await (const event of stream) {
    types.push(event.type)
    sequence.push(event.sequence_number)
  }
  const final = await stream.finalResponse()
  t.equal(final.output_text, `Echo: ${question}`)
  t.equal(final.status, 'completed')
  t.ok((final.usage?.output_tokens ?? 0) > 0, 'the final response carries usage')
  const deltas = types.filter((type) => type === 'response.output_text.delta').length
  t.ok(deltas > 1, 'the text came in pieces')
  t.same(
    types.filter((type) => type !== 'response.output_text.delta'),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  )
  t.same(
    sequence,
    sequence.map((_, i) => i),
    'numbered from 0 without gaps',
  )
  t.match(gw.mock.requests.at(-1)?.body, { stream: true })
})

t.test('a stream the provider cuts ends in an error event, which the SDK raises', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  gw.mock.fail('stream-cut')
  const stream = openai.responses.stream({ model: 'gpt-4o', input: question })
  const types: string[] = []
  stream.on('event', (event) => types.push(event.type))
  await refused(t, stream.finalResponse(), OpenAI.APIError, undefined, /ended its stream before it was complete|connection/)
  t.equal(types[0], 'response.created', 'the stream had begun')
  t.notOk(types.includes('response.completed'))
})

t.test('a function call comes back as an output item, and its output goes back in input', async (t) => {
  const gw = await startDialectGateway(t)
  const openai = new OpenAI({ apiKey: gw.keys.sk, baseURL: `${gw.url}/v1` })
  const first = await openai.responses.create({ model: 'gpt-4o', input: question, tools })
  const fc = first.output.find((item) => item.type === 'function_call')
  t.ok(fc !== undefined && fc.type === 'function_call')
  if (fc?.type !== 'function_call') return
  t.equal(fc.name, 'get_weather')
  t.same(JSON.parse(fc.arguments), { echo: question })
  t.equal(first.output_text, '', 'a call alone says nothing')
  t.match(gw.mock.requests.at(-1)?.body, { tools: [{ type: 'function', function: { name: 'get_weather' } }] })

  const second = await openai.responses.create({
    model: 'gpt-4o',
    tools,
    input: [
      { role: 'user', content: question },
      ...first.output.filter((item) => item.type === 'function_call'),
      { type: 'function_call_output', call_id: fc.call_id, output: 'Sunny, 24 degrees' },
    ],
  })
  t.equal(second.output_text, 'Echo: Sunny, 24 degrees')
  t.match(gw.mock.requests.at(-1)?.body, {
    messages: [
      { role: 'user', content: question },
      { role: 'assistant', tool_calls: [{ id: fc.call_id, function: { name: 'get_weather' } }] },
      { role: 'tool', tool_call_id: fc.call_id, content: 'Sunny, 24 degrees' },
    ],
  })

  const streamed = openai.responses.stream({ model: 'gpt-4o', input: question, tools })
  const argumentDeltas: string[] = []
  streamed.on('response.function_call_arguments.delta', (event) => argumentDeltas.push(event.delta))
  const final = await streamed.finalResponse()
  const streamedCall = final.output.find((item) => item.type === 'function_call')
  t.equal(streamedCall?.type, 'function_call')
  t.same(streamedCall?.type === 'function_call' ? JSON.parse(streamedCall.arguments) : undefined, { echo: question }, 'the streamed arguments add up')
  t.same(JSON.parse(argumentDeltas.join('')), { echo: question })
})

t.test('the local provider answers offline: text, a stream, a function call and a cut answer', async (t) => {
  const gw = await startLocalGateway(t)
  const openai = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1` })
  const answer = await openai.responses.create({ model: 'gpt-4o-mini', input: 'Write a haiku about gateways' })
  t.ok(answer.output_text.length > 0)
  const stream = openai.responses.stream({ model: 'gpt-4o-mini', input: 'Write a haiku about gateways' })
  const final = await stream.finalResponse()
  t.equal(final.output_text, answer.output_text, 'the same input, the same answer')
  const called = await openai.responses.create({ model: 'gpt-4o', input: question, tools })
  const fc = called.output.find((item) => item.type === 'function_call')
  t.same(fc?.type === 'function_call' ? JSON.parse(fc.arguments) : undefined, { city: question, days: 1 })
  const cut = await openai.responses.create({ model: 'gpt-4o-mini', input: 'Write a long essay', max_output_tokens: 2 })
  t.match(cut, { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })
  const cutStream = openai.responses.stream({ model: 'gpt-4o-mini', input: 'Write a long essay', max_output_tokens: 2 })
  const ends: string[] = []
  cutStream.on('response.incomplete', (event) => ends.push(event.response.status ?? ''))
  t.equal((await cutStream.finalResponse()).output_text, cut.output_text)
  t.same(ends, ['incomplete'], 'a cut stream ends in response.incomplete')
  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.key })
  t.match(usage.body.models['gpt-4o-mini'], { requests: 4 })
  t.match(usage.body.models['gpt-4o'], { requests: 1 })
})

t.test('refusals: no key 401, spent budget 402, what the gateway cannot honour 400', async (t) => {
  const gw = await startDialectGateway(t)
  const body = { model: 'gpt-4o-mini', input: 'hello' }
  await refused(t, new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${gw.url}/v1` }).responses.create(body), OpenAI.AuthenticationError, 401)
  await refused(
    t,
    new OpenAI({ apiKey: gw.keys.broke, baseURL: `${gw.url}/v1`, maxRetries: 0 }).responses.create(body),
    OpenAI.APIError,
    402,
    /Budget exceeded/,
  )
  const cases: Array<[object, RegExp]> = [
    [{ previous_response_id: 'resp_1' }, /previous_response_id is not supported/],
    [{ background: true }, /background is not supported/],
    [{ tools: [{ type: 'web_search' }] }, /only function tools are supported/],
    [{ tool_choice: 'required' }, /tool_choice needs tools/],
    [{ input: [] }, /input must hold at least one item/],
    [{ input: [{ type: 'file_search_call' }] }, /an array of input items \(messages, function_call/],
    [{ input: 7 }, /input must be a string or an array of input items/],
    [{ max_output_tokens: 0 }, /at least 1/],
    [{ text: { format: { type: 'xml' } } }, /text.format.type must be/],
  ]
  for (const [change, message] of cases) {
    const answer = await call(`${gw.url}/v1/responses`, { key: gw.keys.sk, body: { ...body, ...change } })
    t.equal(answer.status, 400, JSON.stringify(change))
    t.match(answer.body.error?.message, message)
  }
  t.equal(gw.mock.requests.length, 0, 'no refusal reached the provider')
})

t.test('the Governor reads the input and the answer, as on chat', async (t) => {
  const leaky = `The deploy key is ${SENSITIVE.secret}.`
  const upstream = await startAnswerUpstream(leaky)
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { changes: { governor: { strictMode: true } }, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  const headers = { 'x-governor-metadata': JSON.stringify({ actionType: 'refund_denial', senderId: 'agent-7' }) }
  const card = await call(`${gw.url}/v1/responses`, { key: gw.sk, headers, body: { model: 'gpt-4o-mini', input: `card ${SENSITIVE.card}` } })
  t.equal(card.status, 403, 'a card in the input is refused')
  t.equal(upstream.requests(), 0)

  const governed = { 'x-governor-metadata': JSON.stringify({ actionType: 'customer_support', senderId: 'agent-7' }) }
  const withheld = await call(`${gw.url}/v1/responses`, { key: gw.sk, headers: governed, body: { model: 'gpt-4o-mini', input: 'How do I deploy?' } })
  t.equal(withheld.status, 403, 'an answer with a secret is withheld')
  t.match(withheld.body.error?.message, /answer was withheld/)
  t.notMatch(JSON.stringify(withheld.body), SENSITIVE.secret)
  t.equal(upstream.requests(), 1)
})
