import t, { type Test } from 'tap'
import { InvalidRequestError } from '../../../../proxy/pipeline/errors.ts'
import { parseMessages } from '../../../../proxy/pipeline/dialects/anthropic/request.ts'

const parse = (body: Record<string, unknown>) =>
  parseMessages({ model: 'claude-3-haiku-20240307', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }], ...body }, {})

function refusal(t: Test, body: Record<string, unknown>): InvalidRequestError | undefined {
  try {
    parse(body)
  } catch (err) {
    t.ok(err instanceof InvalidRequestError)
    return err as InvalidRequestError
  }
  t.fail('expected a 400')
  return undefined
}

t.test('maps system text to a system message and leaves the temperature to Anthropic', async (t) => {
  const { request } = parse({
    system: [
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Be kind.' },
    ],
  })
  t.same(request.messages, [
    { role: 'system', content: 'Be brief.\nBe kind.' },
    { role: 'user', content: 'Hi' },
  ])
  t.equal(request.temperature, undefined)
  t.equal(request.maxTokens, 100)
  t.equal(request.model, 'claude-3-haiku-20240307')
})

t.test('splits a user turn into its tool results, then its text and images', async (t) => {
  const { request } = parse({
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 't1', name: 'w', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'Sunny' }] },
          { type: 'text', text: 'And here?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
    ],
    tools: [{ name: 'w', input_schema: { type: 'object' } }],
    tool_choice: { type: 'any' },
  })
  t.same(request.messages, [
    { role: 'user', content: 'Weather?' },
    { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 't1', name: 'w', arguments: '{"city":"Oslo"}' }] },
    { role: 'tool', toolCallId: 't1', content: 'Sunny' },
    {
      role: 'user',
      content: 'And here?',
      parts: [
        { type: 'text', text: 'And here?' },
        { type: 'image', url: 'data:image/png;base64,AAAA' },
      ],
    },
  ])
  t.same(request.tools, [{ name: 'w', description: undefined, parameters: { type: 'object' } }])
  t.equal(request.toolChoice, 'required')
})

t.test('maps tool_choice, stop sequences, top_p and the end user', async (t) => {
  const tools = [{ name: 'w', input_schema: { type: 'object' } }]
  t.same(parse({ tools, tool_choice: { type: 'tool', name: 'w' } }).request.toolChoice, { name: 'w' })
  t.equal(parse({ tools, tool_choice: { type: 'none' } }).request.toolChoice, 'none')
  t.equal(parse({ tools, tool_choice: { type: 'auto' } }).request.toolChoice, 'auto')
  t.match(parse({ stop_sequences: ['END'], top_p: 0.5, metadata: { user_id: 'u' } }).request, { stop: ['END'], topP: 0.5, user: 'u' })
})

t.test('names unknown fields and refuses what it cannot honour', async (t) => {
  t.same(parse({ top_k: 5, thinking: { type: 'enabled' } }).headers, { 'x-gateway-ignored-fields': 'top_k, thinking' })
  t.match(refusal(t, { max_tokens: undefined })?.issues, [{ path: 'max_tokens' }])
  t.match(refusal(t, { temperature: 1.5 })?.issues, [{ path: 'temperature' }])
  t.match(refusal(t, { messages: [{ role: 'system', content: 'x' }] })?.issues, [{ path: 'messages.0.role' }])
  t.match(refusal(t, { messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] })?.issues, [{ path: 'messages.0.content' }])
  t.match(refusal(t, { tools: [{ type: 'bash_20250124', name: 'bash' }] })?.issues, [{ path: 'tools.0.type', message: /only client tools/ }])
  t.match(refusal(t, { tool_choice: { type: 'tool', name: 'w' } })?.issues, [{ path: 'tool_choice', message: 'tool_choice needs tools' }])
  t.match(refusal(t, { messages: [{ role: 'assistant', content: [{ type: 'image', source: { type: 'url', url: 'https://a.example/x.png' } }] }] }), {
    error: /assistant messages hold text and tool_use blocks only/,
  })
  t.match(refusal(t, { messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'w', input: {} }] }] }), {
    error: /belong in assistant messages/,
  })
  t.match(refusal(t, { messages: [{ role: 'user', content: [] }] }), { error: /at least one message/ })
})
