import t, { type Test } from 'tap'
import { requestTexts } from '../../../../proxy/pipeline/ai-request.ts'
import { InvalidRequestError } from '../../../../proxy/pipeline/errors.ts'
import { parseChatCompletions } from '../../../../proxy/pipeline/dialects/openai/request.ts'

const parse = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  parseChatCompletions({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], ...body }, headers)

function refusal(t: Test, body: Record<string, unknown>, headers: Record<string, string> = {}): InvalidRequestError | undefined {
  try {
    parse(body, headers)
  } catch (err) {
    t.ok(err instanceof InvalidRequestError)
    return err as InvalidRequestError
  }
  t.fail('expected a 400')
  return undefined
}

t.test("maps a minimal body, leaving temperature and the answer's bound to the provider", async (t) => {
  const { request, headers } = parse({})
  t.same(request.messages, [{ role: 'user', content: 'Hi' }])
  t.equal(request.model, 'gpt-4o')
  t.equal(request.temperature, undefined)
  t.equal(request.maxTokens, undefined)
  t.equal(request.mode, 'text')
  t.equal(request.stream, false)
  t.same(headers, {})
})

t.test('takes a tier name as the quality', async (t) => {
  const { request } = parse({ model: 'cheap' })
  t.equal(request.model, undefined)
  t.equal(request.quality, 'cheap')
})

t.test('prefers max_completion_tokens over max_tokens', async (t) => {
  t.equal(parse({ max_tokens: 10 }).request.maxTokens, 10)
  t.equal(parse({ max_tokens: 10, max_completion_tokens: 20 }).request.maxTokens, 20)
})

t.test('maps roles, tool calls and tool results, and images only where there are any', async (t) => {
  const { request } = parse({
    messages: [
      { role: 'developer', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'done' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image_url', image_url: { url: 'https://img.example/a.png', detail: 'high' } },
        ],
      },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
  })
  t.same(request.messages, [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'a\nb' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'f', arguments: '{"x":1}' }] },
    { role: 'tool', content: 'done', toolCallId: 'c1' },
    {
      role: 'user',
      content: 'see',
      parts: [
        { type: 'text', text: 'see' },
        { type: 'image', url: 'https://img.example/a.png', detail: 'high' },
      ],
    },
  ])
  t.same(
    requestTexts(request),
    [
      { kind: 'text', text: 'Be brief.' },
      { kind: 'text', text: 'a\nb' },
      { kind: 'text', text: '' },
      { kind: 'arguments', text: '{"x":1}' },
      { kind: 'text', text: 'done' },
      { kind: 'text', text: 'see' },
    ],
    "the tool calls' arguments are texts of the request too, tagged as such",
  )
})

t.test('maps tools, tool_choice, response formats and sampling options', async (t) => {
  const tools = [{ type: 'function', function: { name: 'f', description: 'does f' } }]
  const { request } = parse({
    tools,
    tool_choice: { type: 'function', function: { name: 'f' } },
    top_p: 0.3,
    stop: 'END',
    seed: 4,
    user: 'u',
    response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
  })
  t.same(request.tools, [{ name: 'f', description: 'does f', parameters: { type: 'object', properties: {} } }])
  t.same(request.toolChoice, { name: 'f' })
  t.equal(request.mode, 'json')
  t.same(request.jsonSchema, { name: 'out', schema: { type: 'object' }, strict: true })
  t.same(request.stop, ['END'])
  t.match(request, { topP: 0.3, seed: 4, user: 'u' })
  t.equal(parse({ response_format: { type: 'json_object' } }).request.mode, 'json')
  t.equal(parse({ response_format: { type: 'text' } }).request.mode, 'text')
  t.equal(parse({ tools: [] }).request.tools, undefined, 'an empty tool list is no tools')
})

t.test('lists unknown top-level fields in x-gateway-ignored-fields', async (t) => {
  t.same(parse({ frequency_penalty: 1, logit_bias: {}, n: 1 }).headers, { 'x-gateway-ignored-fields': 'frequency_penalty, logit_bias' })
})

t.test('refuses what it cannot honour with a 400 that names the field', async (t) => {
  t.match(refusal(t, { n: 3 })?.issues, [{ path: 'n', message: /n must be 1/ }])
  t.match(refusal(t, { model: 'gpt-9-ultra' })?.issues, [{ path: 'model' }])
  t.match(refusal(t, { messages: [{ role: 'function', content: 'x' }] })?.issues, [{ path: 'messages.0', message: /role must be one of/ }])
  t.match(refusal(t, { messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] })?.issues, [{ path: 'messages.0.content' }])
  t.match(refusal(t, { tool_choice: 'required' })?.issues, [{ path: 'tool_choice', message: 'tool_choice needs tools' }])
  t.match(refusal(t, { tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: { type: 'function', function: { name: 'g' } } })?.issues, [
    { path: 'tool_choice' },
  ])
  t.match(refusal(t, { temperature: 3 })?.issues, [{ path: 'temperature' }])
  t.match(refusal(t, { max_tokens: 0 })?.issues, [{ path: 'max_tokens' }])
})

t.test('takes governorMetadata from the body first, else from the x-governor-metadata header', async (t) => {
  const fromHeader = { actionType: 'other', senderId: 'h' }
  const fromBody = { actionType: 'legal_advice', senderId: 'b' }
  const header = { 'x-governor-metadata': JSON.stringify(fromHeader) }
  t.same(parse({}, header).request.governorMetadata, fromHeader)
  t.same(parse({ governorMetadata: fromBody }, header).request.governorMetadata, fromBody)
  t.equal(parse({}).request.governorMetadata, undefined)
  t.match(refusal(t, {}, { 'x-governor-metadata': '{"actionType":"unknown","senderId":"x"}' })?.issues, [{ path: 'actionType' }])
  t.match(refusal(t, {}, { 'x-governor-metadata': 'not json' }), { error: /is not JSON/ })
})
