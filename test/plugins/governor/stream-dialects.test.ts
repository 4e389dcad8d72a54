// The Governor on the client dialects' streams: strict mode stops a card number or a key with the
// dialect's own error frame, which its SDK raises, before any character of the value is sent; and
// redaction replaces values in the dialects' streams and JSON answers (Chat Completions, Responses
// and Messages). Strict mode and redaction hold a stream's tool calls and check them whole at its
// end: strict mode stops on them, redaction replaces values in their arguments, which still parse.
// With neither, they go out as they arrive.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import { call, parseSse } from '../../helpers/http.ts'
import { startAnswerUpstream, type AnswerOptions } from './answer-upstream.ts'
import { governedGateway, metadata, SENSITIVE, type GovernedGatewayOptions } from './fixtures.ts'

const STRICT = { changes: { governor: { strictMode: true } } }
const REDACT = { changes: { governor: { redactOutput: true } } }
const FILLER = Array.from({ length: 12 }, (_, i) => ` More text, part ${i}.`)
const headers = { 'x-governor-metadata': JSON.stringify(metadata) }
const question = { role: 'user' as const, content: 'What is on file?' }

async function gatewayStreaming(t: Test, pieces: readonly string[], options: GovernedGatewayOptions, answer: AnswerOptions = {}) {
  const upstream = await startAnswerUpstream(pieces, { gapMs: 50, ...answer })
  t.teardown(() => upstream.close())
  const gw = await governedGateway(t, { ...options, env: { OPENAI_API_KEY: 'test-openai', OPENAI_BASE_URL: upstream.url } })
  return { gw, upstream }
}

/** A fetch that keeps every response body's raw text as the client received it. */
function recordingFetch(): { readonly fetch: typeof fetch; readonly bodies: () => Promise<string[]> } {
  const bodies: Promise<string>[] = []
  return {
    fetch: (async (input, init) => {
      const response = await fetch(input, init)
      bodies.push(
        response
          .clone()
          .text()
          .catch(() => ''),
      )
      return response
    }) as typeof fetch,
    bodies: () => Promise.all(bodies),
  }
}

for (const [name, pieces, type, leak] of [
  ['a card number', ['Your card is ', '4111 1111', ' 1111 1111', ', keep it safe.', ...FILLER], 'CREDIT_CARD', /4111|1111/],
  ['an AWS key id', ['The deploy key is ', 'AKIA', 'IOSFODNN7EXAMPLF', ' for now.', ...FILLER], 'SECRET', /AKIA|IOSF|EXAMPLF/],
] as const) {
  t.test(`strict mode stops ${name} on an OpenAI-dialect stream: the SDK raises the error chunk`, async (t) => {
    const { gw, upstream } = await gatewayStreaming(t, pieces, STRICT)
    const recorder = recordingFetch()
    const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, fetch: recorder.fetch, maxRetries: 0 })
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], stream: true }, { headers })
    let text = ''
    let raised: unknown
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    } catch (err) {
      raised = err
    }
    t.ok(raised instanceof OpenAI.APIError, 'the SDK raises an APIError')
    t.match((raised as InstanceType<typeof OpenAI.APIError>).error, {
      message: /Response blocked by Governor/,
      type: 'permission_error',
      code: 'governor_response_blocked',
      auditId: /^aud_/,
      found: [type],
    })
    t.equal(text, pieces[0], 'only the text before the value went out')
    const [body] = await recorder.bodies()
    t.notMatch(body, leak, 'no character of the value reached the client')
    t.match(body, /\ndata: \{"error":\{[^\n]*"code":"governor_response_blocked"/)
    t.notMatch(body, /\[DONE\]/, 'the stream ends at the error chunk')
    await upstream.whenAborted()
    t.ok(upstream.aborted() >= 1, 'the model call was aborted')
    const audit = await call(`${gw.url}/api/compliance/audit/${(raised as { error: { auditId: string } }).error.auditId}`, { key: gw.pk })
    t.match(audit.body, { kind: 'output', decision: 'blocked', findingCounts: { [type]: 1 } })
  })

  t.test(`strict mode stops ${name} on an Anthropic-dialect stream: the SDK raises the error event`, async (t) => {
    const { gw, upstream } = await gatewayStreaming(t, pieces, STRICT)
    const recorder = recordingFetch()
    const anthropic = new Anthropic({ apiKey: gw.sk, baseURL: gw.url, fetch: recorder.fetch, maxRetries: 0 })
    const stream = anthropic.messages.stream({ model: 'gpt-4o-mini', max_tokens: 200, messages: [question] }, { headers })
    let text = ''
    stream.on('text', (piece) => {
      text += piece
    })
    let raised: unknown
    try {
      await stream.finalMessage()
    } catch (err) {
      raised = err
    }
    t.ok(raised instanceof Anthropic.APIError, 'the SDK raises an APIError')
    t.match((raised as InstanceType<typeof Anthropic.APIError>).error, {
      type: 'error',
      error: { type: 'permission_error', message: /Response blocked by Governor/, code: 'governor_response_blocked', found: [type] },
    })
    t.equal(text, pieces[0], 'only the text before the value went out')
    const [body] = await recorder.bodies()
    t.notMatch(body, leak, 'no character of the value reached the client')
    t.match(body, /event: error\ndata: \{"type":"error","error":\{"type":"permission_error"/)
    t.notMatch(body, /message_stop/, 'the stream ends at the error event')
    await upstream.whenAborted()
    t.ok(upstream.aborted() >= 1, 'the model call was aborted')
  })
}

const tools = [{ type: 'function' as const, function: { name: 'file_payment', parameters: { type: 'object', properties: {} } } }]

for (const [name, argumentPieces, type, leak] of [
  ['a card number', ['{"card":"4111 1111', ' 1111 1111","note":"', 'keep it safe"}'], 'CREDIT_CARD', /4111|1111/],
  ['an AWS key id', ['{"key":"AKIA', 'IOSFODNN7EXAMPLF","note":"', 'for now"}'], 'SECRET', /AKIA|IOSF|EXAMPLF/],
  ['a card number right after an escape sequence', ['{"note":"call me\\n4111 1111', ' 1111 1111"}'], 'CREDIT_CARD', /4111|1111/],
] as const) {
  t.test(`strict mode stops ${name} in a tool call's arguments on an OpenAI-dialect stream: no tool-call frame goes out`, async (t) => {
    const toolCall = { id: 'call_pay', name: 'file_payment', pieces: argumentPieces }
    const { gw, upstream } = await gatewayStreaming(t, ['Filing it now.'], STRICT, { toolCall })
    const recorder = recordingFetch()
    const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, fetch: recorder.fetch, maxRetries: 0 })
    const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], tools, stream: true }, { headers })
    let raised: unknown
    try {
      for await (const chunk of stream) t.notOk(chunk.choices[0]?.delta.tool_calls, 'no tool-call chunk reaches the SDK')
    } catch (err) {
      raised = err
    }
    t.ok(raised instanceof OpenAI.APIError, 'the SDK raises an APIError')
    t.match((raised as InstanceType<typeof OpenAI.APIError>).error, {
      message: /Response blocked by Governor/,
      type: 'permission_error',
      code: 'governor_response_blocked',
      auditId: /^aud_/,
      found: [type],
    })
    const [body] = await recorder.bodies()
    t.notMatch(body, leak, 'no character of the value reached the client')
    t.notMatch(body, /tool_calls|call_pay|file_payment/, 'no tool-call frame went out')
    t.match(body, /\ndata: \{"error":\{[^\n]*"code":"governor_response_blocked"/)
    t.notMatch(body, /\[DONE\]/, 'the stream ends at the error chunk')
    t.equal(upstream.requests(), 1)
    const audit = await call(`${gw.url}/api/compliance/audit/${(raised as { error: { auditId: string } }).error.auditId}`, { key: gw.pk })
    t.match(audit.body, { kind: 'output', decision: 'blocked', findingCounts: { [type]: 1 } })
  })
}

t.test('strict mode stops a card number in a tool call on an Anthropic-dialect stream: no tool_use block goes out', async (t) => {
  const toolCall = { id: 'call_pay', name: 'file_payment', pieces: ['{"card":"4111 1111', ' 1111 1111"}'] }
  const { gw } = await gatewayStreaming(t, ['Filing it now.'], STRICT, { toolCall })
  const recorder = recordingFetch()
  const anthropic = new Anthropic({ apiKey: gw.sk, baseURL: gw.url, fetch: recorder.fetch, maxRetries: 0 })
  const anthropicTools = [{ name: 'file_payment', input_schema: { type: 'object' as const, properties: {} } }]
  let raised: unknown
  try {
    await anthropic.messages.stream({ model: 'gpt-4o-mini', max_tokens: 200, messages: [question], tools: anthropicTools }, { headers }).finalMessage()
  } catch (err) {
    raised = err
  }
  t.ok(raised instanceof Anthropic.APIError, 'the SDK raises an APIError')
  t.match((raised as InstanceType<typeof Anthropic.APIError>).error, {
    type: 'error',
    error: { type: 'permission_error', message: /Response blocked by Governor/, code: 'governor_response_blocked', found: ['CREDIT_CARD'] },
  })
  const [body] = await recorder.bodies()
  t.notMatch(body, /4111|1111/, 'no character of the number reached the client')
  t.notMatch(body, /tool_use|input_json_delta|file_payment/, 'no tool_use block went out')
})

t.test('strict mode releases a clean tool call whole after the text, with its id, name and index', async (t) => {
  const toolCall = { id: 'call_pay', name: 'file_payment', pieces: ['{"amount":', '42,"currency"', ':"EUR"}'] }
  const { gw } = await gatewayStreaming(t, ['Filing ', 'it now.'], STRICT, { toolCall })
  const recorder = recordingFetch()
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, fetch: recorder.fetch, maxRetries: 0 })
  const completion = await openai.chat.completions.stream({ model: 'gpt-4o-mini', messages: [question], tools }, { headers }).finalChatCompletion()
  const message = completion.choices[0]!.message
  t.equal(message.content, 'Filing it now.')
  t.match(message.tool_calls, [{ id: 'call_pay', type: 'function', function: { name: 'file_payment', arguments: '{"amount":42,"currency":"EUR"}' } }])
  t.equal(message.tool_calls?.length, 1)
  t.equal(completion.choices[0]!.finish_reason, 'tool_calls')
  const [body] = await recorder.bodies()
  const frames = body!.split('\n\n').filter((frame) => frame.startsWith('data: {'))
  const firstCall = frames.findIndex((frame) => frame.includes('"tool_calls"'))
  const lastText = frames.findLastIndex((frame) => /"content":"[^"]/.test(frame))
  t.ok(lastText >= 0 && firstCall > lastText, 'the held text goes out before the tool call')
  t.ok(
    frames.filter((frame) => frame.includes('"tool_calls"')).every((frame) => frame.includes('"index":0')),
    'the call keeps its index',
  )
})

t.test('with neither strict mode nor redaction tool-call pieces are written as they arrive, before the model is done', async (t) => {
  let release = () => {}
  const modelDone = new Promise<void>((resolve) => {
    release = resolve
  })
  let timer: NodeJS.Timeout | undefined
  t.teardown(() => clearTimeout(timer))
  let ended = false
  const beforeEnd = async () => {
    await modelDone
    ended = true
  }
  const toolCall = { id: 'call_pay', name: 'file_payment', pieces: ['{"amount":', '42}'] }
  const { gw } = await gatewayStreaming(t, ['Filing it now.'], {}, { toolCall, beforeEnd })
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  // Should the gateway hold the call, the model ends after this and the test fails rather than
  // hangs: counted from the request, not from the gateway's start, and long enough for a loaded machine.
  timer = setTimeout(() => release(), 30_000)
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], tools, stream: true }, { headers })
  let before: boolean | undefined
  let input = ''
  for await (const chunk of stream) {
    const calls = chunk.choices[0]?.delta.tool_calls
    if (calls === undefined) continue
    input += calls.map((c) => c.function?.arguments ?? '').join('')
    if (input === '{"amount":42}' && before === undefined) {
      before = !ended
      release()
    }
  }
  t.equal(before, true, 'the whole call reached the client while the model was still streaming')
})

t.test("redactOutput replaces values in the dialects' streams and JSON answers", async (t) => {
  const pieces = ['Mail ', SENSITIVE.email, ' or call; card ', SENSITIVE.card, '.']
  const { gw } = await gatewayStreaming(t, pieces, REDACT)
  const expected = 'Mail [REDACTED:EMAIL_ADDRESS] or call; card [REDACTED:CREDIT_CARD].'
  // Each request differs, so none is a cache hit of another.
  const asked = (n: number) => ({ role: 'user' as const, content: `What is on file? (${n})` })
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  let streamed = ''
  for await (const chunk of await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [asked(1)], stream: true }, { headers })) {
    streamed += chunk.choices[0]?.delta.content ?? ''
  }
  t.equal(streamed, expected, 'OpenAI stream')
  const json = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [asked(2)] }, { headers })
  t.equal(json.choices[0]!.message.content, expected, 'OpenAI JSON')

  const anthropic = new Anthropic({ apiKey: gw.sk, baseURL: gw.url, maxRetries: 0 })
  const final = await anthropic.messages.stream({ model: 'gpt-4o-mini', max_tokens: 200, messages: [asked(3)] }, { headers }).finalMessage()
  t.match(final.content, [{ type: 'text', text: expected }], 'Anthropic stream')
  const message = await anthropic.messages.create({ model: 'gpt-4o-mini', max_tokens: 200, messages: [asked(4)] }, { headers })
  t.match(message.content, [{ type: 'text', text: expected }], 'Anthropic JSON')
})

const CARD_CALL = { id: 'call_pay', name: 'file_payment', pieces: ['{"card":"4111 1111', ' 1111 1111","note":"', 'keep it safe"}'] }
const REDACTED_ARGUMENTS = '{"card":"[REDACTED:CREDIT_CARD]","note":"keep it safe"}'

t.test('redactOutput replaces values in OpenAI Responses streams and JSON answers, text and function call arguments alike', async (t) => {
  const pieces = ['Mail ', SENSITIVE.email, ' or call; card ', SENSITIVE.card, '.']
  const { gw } = await gatewayStreaming(t, pieces, REDACT, { toolCall: CARD_CALL })
  const expected = 'Mail [REDACTED:EMAIL_ADDRESS] or call; card [REDACTED:CREDIT_CARD].'
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  const responseTools = [{ type: 'function' as const, name: 'file_payment', parameters: { type: 'object', properties: {} }, strict: false }]
  const asked = (n: number) => `What is on file? (${n})`
  const streamed = await openai.responses.stream({ model: 'gpt-4o-mini', input: asked(1), tools: responseTools }, { headers }).finalResponse()
  const json = await openai.responses.create({ model: 'gpt-4o-mini', input: asked(2), tools: responseTools }, { headers })
  for (const [what, response] of [
    ['stream', streamed],
    ['JSON', json],
  ] as const) {
    t.equal(response.output_text, expected, `${what}: the text`)
    const fc = response.output.find((item) => item.type === 'function_call')
    t.equal(fc?.type === 'function_call' ? fc.arguments : undefined, REDACTED_ARGUMENTS, `${what}: the call's arguments`)
  }
})

t.test("redactOutput replaces values in tool calls' arguments in the dialects' streams and JSON answers, and they still parse", async (t) => {
  const { gw } = await gatewayStreaming(t, ['Filing ', 'it now.'], REDACT, { toolCall: CARD_CALL })
  const asked = (n: number) => ({ role: 'user' as const, content: `What is on file? (${n})` })
  const recorder = recordingFetch()
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, fetch: recorder.fetch, maxRetries: 0 })
  const streamed = await openai.chat.completions.stream({ model: 'gpt-4o-mini', messages: [asked(1)], tools }, { headers }).finalChatCompletion()
  t.equal(streamed.choices[0]!.message.content, 'Filing it now.')
  t.match(
    streamed.choices[0]!.message.tool_calls,
    [{ id: 'call_pay', type: 'function', function: { name: 'file_payment', arguments: REDACTED_ARGUMENTS } }],
    'OpenAI stream',
  )
  t.equal(streamed.choices[0]!.message.tool_calls?.length, 1)
  t.equal(streamed.choices[0]!.finish_reason, 'tool_calls')
  const json = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [asked(2)], tools }, { headers })
  const [call] = json.choices[0]!.message.tool_calls ?? []
  t.match(call, { id: 'call_pay', function: { name: 'file_payment', arguments: REDACTED_ARGUMENTS } }, 'OpenAI JSON')
  t.same(JSON.parse((call as { function: { arguments: string } }).function.arguments), { card: '[REDACTED:CREDIT_CARD]', note: 'keep it safe' })
  const [streamBody, jsonBody] = await recorder.bodies()
  for (const body of [streamBody, jsonBody]) t.notMatch(body, /4111|1111/, 'no digit of the number reached the client')
  const frames = streamBody!.split('\n\n').filter((frame) => frame.startsWith('data: {'))
  const callFrames = frames.filter((frame) => frame.includes('"tool_calls":['))
  t.equal(callFrames.length, 1, 'the redacted call goes out as one piece')
  t.ok(frames.indexOf(callFrames[0]!) > frames.findLastIndex((frame) => /"content":"[^"]/.test(frame)), 'after the text')
  t.match(callFrames[0], /"index":0,"id":"call_pay","type":"function","function":\{"arguments":"\{\\"card\\":\\"\[REDACTED:CREDIT_CARD\]\\"/)

  const anthropicRecorder = recordingFetch()
  const anthropic = new Anthropic({ apiKey: gw.sk, baseURL: gw.url, fetch: anthropicRecorder.fetch, maxRetries: 0 })
  const anthropicTools = [{ name: 'file_payment', input_schema: { type: 'object' as const, properties: {} } }]
  const input = { card: '[REDACTED:CREDIT_CARD]', note: 'keep it safe' }
  const final = await anthropic.messages
    .stream({ model: 'gpt-4o-mini', max_tokens: 200, messages: [asked(3)], tools: anthropicTools }, { headers })
    .finalMessage()
  t.match(
    final.content,
    [
      { type: 'text', text: 'Filing it now.' },
      { type: 'tool_use', id: 'call_pay', name: 'file_payment', input },
    ],
    'Anthropic stream',
  )
  t.equal(final.stop_reason, 'tool_use')
  const message = await anthropic.messages.create({ model: 'gpt-4o-mini', max_tokens: 200, messages: [asked(4)], tools: anthropicTools }, { headers })
  t.match(
    message.content,
    [
      { type: 'text', text: 'Filing it now.' },
      { type: 'tool_use', id: 'call_pay', name: 'file_payment', input },
    ],
    'Anthropic JSON',
  )
  for (const body of await anthropicRecorder.bodies()) t.notMatch(body, /4111|1111/)
})

t.test('a card number written as a JSON number in the arguments becomes the string "[REDACTED:CREDIT_CARD]"', async (t) => {
  const toolCall = { id: 'call_pay', name: 'file_payment', pieces: ['{"card":4111', '111111111111,"amount":42}'] }
  const { gw } = await gatewayStreaming(t, ['Filing it now.'], REDACT, { toolCall })
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  const streamed = await openai.chat.completions.stream({ model: 'gpt-4o-mini', messages: [question], tools }, { headers }).finalChatCompletion()
  t.equal(streamed.choices[0]!.message.tool_calls?.[0]?.function.arguments, '{"card":"[REDACTED:CREDIT_CARD]","amount":42}')
})

t.test("a card number right after an escape sequence in a tool call's arguments is withheld in strict mode and redacted with redactOutput", async (t) => {
  const toolCall = { id: 'call_pay', name: 'file_payment', pieces: ['{"note":"call me\\n4111 1111', ' 1111 1111"}'] }
  const strict = await gatewayStreaming(t, ['Filing it now.'], STRICT, { toolCall })
  const strictClient = new OpenAI({ apiKey: strict.gw.sk, baseURL: `${strict.gw.url}/v1`, maxRetries: 0 })
  const withheld = await strictClient.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], tools }, { headers }).catch((err: unknown) => err)
  t.match(withheld, { status: 403, error: { code: 'governor_blocked' } }, 'the JSON answer is withheld')

  const { gw } = await gatewayStreaming(t, ['Filing it now.'], REDACT, { toolCall })
  const asked = (n: number) => ({ role: 'user' as const, content: `What is on file? (${n})` })
  const recorder = recordingFetch()
  const openai = new OpenAI({ apiKey: gw.sk, baseURL: `${gw.url}/v1`, fetch: recorder.fetch, maxRetries: 0 })
  const streamed = await openai.chat.completions.stream({ model: 'gpt-4o-mini', messages: [asked(1)], tools }, { headers }).finalChatCompletion()
  const json = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [asked(2)], tools }, { headers })
  for (const [name, calls] of [
    ['stream', streamed.choices[0]!.message.tool_calls],
    ['JSON', json.choices[0]!.message.tool_calls],
  ] as const) {
    const [call] = (calls ?? []) as readonly { function: { arguments: string } }[]
    t.same(JSON.parse(call!.function.arguments), { note: 'call me\n[REDACTED:CREDIT_CARD]' }, name)
  }
  for (const body of await recorder.bodies()) t.notMatch(body, /4111|1111/, 'no digit group of the number reached the client')
})

t.test("on the spec's chat stream a redacting Governor holds the tool calls, and the record still lists what the model generated", async (t) => {
  const { gw } = await gatewayStreaming(t, ['Filing ', 'it now.'], REDACT, { toolCall: CARD_CALL })
  const res = await gw.ask('chat', 'What is on file?')
  t.notMatch(res.body, /4111|1111|file_payment/)
  const done = parseSse(res.body).at(-1)!
  t.equal(done.event, 'done')
  t.match(done.data.governor, { outputViolations: 1 })
  const record = await call(`${gw.url}/api/compliance/audit/${done.data.governor.outputAuditId}`, { key: gw.pk })
  t.match(record.body, { kind: 'output', findingCounts: { CREDIT_CARD: 1 } })
})

t.test('strict mode with redaction redacts a medium finding in a tool call and still stops on a card', async (t) => {
  const both = { changes: { governor: { strictMode: true, redactOutput: true } } }
  const contact = await gatewayStreaming(t, ['Filing it now.'], both, {
    toolCall: { id: 'call_mail', name: 'send_mail', pieces: [`{"to":"${SENSITIVE.email}"}`] },
  })
  const openai = new OpenAI({ apiKey: contact.gw.sk, baseURL: `${contact.gw.url}/v1`, maxRetries: 0 })
  const streamed = await openai.chat.completions.stream({ model: 'gpt-4o-mini', messages: [question], tools }, { headers }).finalChatCompletion()
  t.equal(streamed.choices[0]!.message.tool_calls?.[0]?.function.arguments, '{"to":"[REDACTED:EMAIL_ADDRESS]"}')

  const card = await gatewayStreaming(t, ['Filing it now.'], both, { toolCall: CARD_CALL })
  const recorder = recordingFetch()
  const cardClient = new OpenAI({ apiKey: card.gw.sk, baseURL: `${card.gw.url}/v1`, fetch: recorder.fetch, maxRetries: 0 })
  let raised: unknown
  try {
    await cardClient.chat.completions.stream({ model: 'gpt-4o-mini', messages: [question], tools }, { headers }).finalChatCompletion()
  } catch (err) {
    raised = err
  }
  t.match((raised as InstanceType<typeof OpenAI.APIError>).error, { code: 'governor_response_blocked', found: ['CREDIT_CARD'] })
  const [body] = await recorder.bodies()
  t.notMatch(body, /tool_calls|4111|1111/)
  const json = await cardClient.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], tools }, { headers }).catch((err: unknown) => err)
  t.match(json, { status: 403, error: { code: 'governor_blocked' } }, 'a JSON answer with the card is withheld')
})
