// A real HTTP server on 127.0.0.1 (port 0) that answers like OpenAI, Mistral and Anthropic, as
// JSON and as SSE, with a queue of faults for tests and a fixed latency for benchmarks. Answers
// echo the last message, so tests can predict them; offered tools, the mock calls the first (or
// the one tool_choice names) with `{"echo": <last message>}` until the last message is its result.
// POST /v1/embeddings gets vectors (mock-embeddings.ts).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { embeddingsAnswer, type EmbeddingsWire } from './mock-embeddings.ts'

export type FaultKind =
  /** 500 with the provider's error body. */
  | 'server-error'
  /** 429 with the provider's error body and `retry-after` of `rateLimitRetryAfterS`. */
  | 'rate-limit'
  /** 400 with the provider's error body, code `context_length_exceeded` and param `messages`. */
  | 'bad-request'
  /** 404 with the provider's error body: the model does not exist. */
  | 'not-found'
  /** 422 with the provider's error body, as Mistral answers a body it cannot process. */
  | 'unprocessable'
  /** 400 saying the prompt is longer than the model's context window (OpenAI's `context_length_exceeded`). */
  | 'context-length'
  /** The socket is destroyed once the request has arrived, before any answer. */
  | 'reset'
  /** The answer starts only after `slowFirstByteMs`. */
  | 'slow-first-byte'
  /** Half of the answer, then the socket is destroyed. */
  | 'stream-cut'
  /** Headers, then one event (or one byte of JSON) every `slowStreamMs`, never ending. */
  | 'slow-stream'
  /** A streamed text answer's text in full, then nothing: no usage, no end, the socket left open (a JSON answer: headers only). */
  | 'stream-stall'
  /** A json-mode answer whose text is not JSON. */
  | 'invalid-json'
  /** A stream whose first event is the provider's in-stream error (overloaded / server_error). */
  | 'stream-error'

export interface MockUpstreamOptions {
  /** Wait before every answer's headers. Default 0. */
  readonly latencyMs?: number
  /** Text pieces per streamed answer. Default 4. */
  readonly chunks?: number
  /** Delay of a 'slow-first-byte' answer. Default 10 000, far beyond any test's first-byte timeout. */
  readonly slowFirstByteMs?: number
  /** Pace of a 'slow-stream' answer. Default 20. */
  readonly slowStreamMs?: number
  /** The `retry-after` of a 'rate-limit' answer, in seconds. Default 0. */
  readonly rateLimitRetryAfterS?: number
  /** Keep every request in `requests`. Default true; benchmarks turn it off to keep memory flat. */
  readonly record?: boolean
  /**
   * Multiplies the token counts the mock reports, like a provider whose tokenizer counts more than
   * the gateway's bound: the completion count may then exceed max_tokens. Default 1.
   */
  readonly usageFactor?: number
  /**
   * Prompt tokens the mock reports as read from (and, on Anthropic, written to) its prompt cache:
   * OpenAI and Mistral count them within prompt_tokens, Anthropic beside input_tokens.
   */
  readonly promptCache?: { readonly read: number; readonly write?: number }
}

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The parsed JSON body. */
  readonly body: unknown
}

export interface MockUpstream {
  /** `http://127.0.0.1:<port>`: use it as every provider's baseUrl. */
  readonly url: string
  readonly requests: readonly RecordedRequest[]
  /** Requests whose connection the client closed before the answer was complete. */
  readonly aborted: number
  /** Queues `count` faults (default 1); each following request takes the next one. */
  fail(kind: FaultKind, count?: number): void
  /** Keeps every following request waiting, unanswered, until release(). */
  hold(): void
  /** Answers the held requests and stops holding. */
  release(): void
  /** Requests waiting because of hold(). */
  readonly held: number
  /** Resolves once `aborted` reaches `count` (default 1). */
  whenAborted(count?: number): Promise<void>
  close(): Promise<void>
}

type Dialect = 'openai' | 'mistral' | 'anthropic'

interface WireBlock {
  readonly type?: string
  readonly text?: string
  readonly id?: string
  readonly tool_use_id?: string
  readonly content?: unknown
}

interface WireMessage {
  readonly role?: string
  /** A string, or content parts (OpenAI) / blocks (Anthropic). */
  readonly content?: string | readonly WireBlock[] | null
  readonly tool_calls?: readonly { readonly id?: string }[]
  readonly tool_call_id?: string
}

interface WireTool {
  /** Anthropic's tools name themselves; OpenAI's sit under `function`. */
  readonly name?: string
  readonly function?: { readonly name?: string }
}

interface WireRequest {
  readonly model?: string
  readonly messages?: readonly WireMessage[]
  readonly system?: string
  readonly max_tokens?: number
  readonly max_completion_tokens?: number
  readonly temperature?: number
  readonly stream?: boolean
  readonly stream_options?: { readonly include_usage?: boolean }
  readonly response_format?: { readonly type?: string }
  readonly tools?: readonly WireTool[]
  readonly tool_choice?: string | { readonly type?: string; readonly name?: string; readonly function?: { readonly name?: string } }
}

interface ToolUse {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

interface Answer {
  readonly text: string
  readonly promptTokens: number
  readonly completionTokens: number
  readonly toolUse?: ToolUse
  readonly cacheRead?: number
  readonly cacheWrite?: number
}

function anthropicUsage(answer: Answer, outputTokens: number): Record<string, number> {
  const read = answer.cacheRead ?? 0
  const write = answer.cacheWrite ?? 0
  const usage: Record<string, number> = { input_tokens: answer.promptTokens - read - write, output_tokens: outputTokens }
  if (answer.cacheRead !== undefined) Object.assign(usage, { cache_read_input_tokens: read, cache_creation_input_tokens: write })
  return usage
}

function openAiUsage(answer: Answer): Record<string, unknown> {
  const usage: Record<string, unknown> = {
    prompt_tokens: answer.promptTokens,
    completion_tokens: answer.completionTokens,
    total_tokens: answer.promptTokens + answer.completionTokens,
  }
  if (answer.cacheRead !== undefined) usage['prompt_tokens_details'] = { cached_tokens: answer.cacheRead }
  return usage
}

interface Exchange {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  readonly dialect: Dialect
  readonly wire: WireRequest
  /** Set when the mock itself ends the connection, so it is not counted as the client's abort. */
  isClosedByMock: boolean
}

// Roughly four characters per token, the usual rule of thumb for English.
const tokensOf = (chars: number): number => Math.max(1, Math.ceil(chars / 4))

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }
const JSON_HEADERS = { 'content-type': 'application/json' }

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...JSON_HEADERS, ...headers })
  res.end(JSON.stringify(body))
}

function errorBody(dialect: Dialect, type: string, message: string, detail: { param?: string; code?: string } = {}): unknown {
  if (dialect === 'anthropic') return { type: 'error', error: { type, message } }
  const param = detail.param ?? null
  const code = detail.code ?? null
  if (dialect === 'mistral') return { object: 'error', message, type, param, code }
  return { error: { message, type, param, code } }
}

/** A message's text: its string, or its text parts and tool results joined. */
function textOf(message: WireMessage | undefined): string {
  const content = message?.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((block) => block.text ?? (typeof block.content === 'string' ? block.content : '')).join('')
}

const isToolResult = (dialect: Dialect, message: WireMessage | undefined): boolean =>
  dialect === 'anthropic' ? Array.isArray(message?.content) && message.content.some((block) => block.type === 'tool_result') : message?.role === 'tool'

/** Like the real APIs: every tool result answers a call of the assistant message before it. */
function orphanToolResult(dialect: Dialect, messages: readonly WireMessage[]): string | undefined {
  let calls = new Set<string>()
  for (const message of messages) {
    if (message.role === 'assistant') {
      calls = new Set([
        ...(message.tool_calls ?? []).map((call) => call.id ?? ''),
        ...(Array.isArray(message.content) ? message.content.filter((block) => block.type === 'tool_use').map((block) => block.id ?? '') : []),
      ])
      continue
    }
    const answered =
      dialect === 'anthropic'
        ? Array.isArray(message.content)
          ? message.content.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id ?? '')
          : []
        : message.role === 'tool'
          ? [message.tool_call_id ?? '']
          : []
    for (const id of answered) if (!calls.has(id)) return id
    if (dialect === 'anthropic' || message.role !== 'tool') calls = new Set()
  }
  return undefined
}

/** The tool the mock calls: none with tool_choice none, the named one, else the first; never right after a result. */
function toolToCall(dialect: Dialect, wire: WireRequest): string | undefined {
  const tools = wire.tools ?? []
  const choice = wire.tool_choice
  if (tools.length === 0 || choice === 'none' || (typeof choice === 'object' && choice.type === 'none')) return undefined
  const named = typeof choice === 'object' ? (choice.name ?? choice.function?.name) : undefined
  if (named !== undefined) return named
  const messages = wire.messages ?? []
  if (isToolResult(dialect, messages[messages.length - 1])) return undefined
  return tools[0]?.name ?? tools[0]?.function?.name
}

/** OpenAI's reasoning models, which refuse max_tokens and any temperature but their default. */
const OPENAI_REASONING_MODEL = /^(?:o\d|gpt-5)/

/** The checks the real APIs make that an adapter could get wrong. */
function wireProblem(dialect: Dialect, headers: IncomingHttpHeaders, wire: WireRequest): { status: number; type: string; message: string } | undefined {
  const orphan = orphanToolResult(dialect, wire.messages ?? [])
  if (orphan !== undefined) {
    return { status: 400, type: 'invalid_request_error', message: `tool result ${orphan} does not answer a tool call of the message before it` }
  }
  if (dialect === 'anthropic') {
    const key = headers['x-api-key']
    if (typeof key !== 'string' || key.length === 0) return { status: 401, type: 'authentication_error', message: 'x-api-key header is required' }
    if (key.includes('invalid')) return { status: 401, type: 'authentication_error', message: 'invalid x-api-key' }
    if (headers['anthropic-version'] === undefined) return { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' }
    if (typeof wire.max_tokens !== 'number') return { status: 400, type: 'invalid_request_error', message: 'max_tokens: Field required' }
    if (wire.messages?.some((m) => m.role === 'system')) return { status: 400, type: 'invalid_request_error', message: 'messages: Unexpected role "system"' }
    if ((wire.temperature ?? 0) > 1) return { status: 400, type: 'invalid_request_error', message: 'temperature: must be at most 1' }
    return undefined
  }
  const auth = headers.authorization
  const azureKey = headers['api-key']
  const key = typeof azureKey === 'string' ? azureKey : typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : ''
  if (key.length === 0 || key.includes('invalid')) {
    const masked = `${key.slice(0, 6)}${'*'.repeat(8)}${key.slice(-4)}`
    return { status: 401, type: 'invalid_request_error', message: dialect === 'mistral' ? 'Unauthorized' : `Incorrect API key provided: ${masked}.` }
  }
  if (dialect === 'openai' && OPENAI_REASONING_MODEL.test(wire.model ?? '')) {
    if (wire.max_tokens !== undefined) {
      return {
        status: 400,
        type: 'invalid_request_error',
        message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      }
    }
    if (wire.temperature !== undefined && wire.temperature !== 1) {
      return {
        status: 400,
        type: 'invalid_request_error',
        message: `Unsupported value: 'temperature' does not support ${wire.temperature} with this model. Only the default (1) value is supported.`,
      }
    }
  }
  if (dialect === 'mistral' && wire.stream_options !== undefined) {
    return { status: 422, type: 'invalid_request_error', message: 'stream_options: Extra inputs are not permitted' }
  }
  if (
    wire.response_format?.type === 'json_object' &&
    !JSON.stringify(wire.messages ?? [])
      .toLowerCase()
      .includes('json')
  ) {
    return {
      status: 400,
      type: 'invalid_request_error',
      message: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
    }
  }
  return undefined
}

function isJsonMode(dialect: Dialect, wire: WireRequest): boolean {
  if (dialect === 'anthropic') return (wire.system ?? '').includes('JSON')
  return wire.response_format?.type === 'json_object' || wire.response_format?.type === 'json_schema'
}

function answerOf(exchange: Exchange, isInvalidJson: boolean, usageFactor: number): Answer {
  const { dialect, wire } = exchange
  const messages = wire.messages ?? []
  const last = textOf(messages[messages.length - 1])
  let promptChars = wire.system?.length ?? 0
  for (const message of messages) promptChars += typeof message.content === 'string' ? message.content.length : JSON.stringify(message.content ?? '').length
  const promptTokens = tokensOf(promptChars) + 3 * messages.length
  const tool = toolToCall(dialect, wire)
  if (tool !== undefined) {
    const toolUse = { id: dialect === 'anthropic' ? 'toolu_mock' : 'call_mock', name: tool, arguments: JSON.stringify({ echo: last }) }
    return { text: '', promptTokens, completionTokens: tokensOf(toolUse.arguments.length), toolUse }
  }
  let text: string
  if (isJsonMode(dialect, wire)) {
    text = isInvalidJson ? 'Sure! Here is the answer you asked for.' : JSON.stringify({ echo: last })
  } else {
    const words = `Echo: ${last}`.split(' ')
    text = words.slice(0, Math.max(1, wire.max_completion_tokens ?? wire.max_tokens ?? words.length)).join(' ')
  }
  return { text, promptTokens: Math.ceil(promptTokens * usageFactor), completionTokens: Math.ceil(tokensOf(text.length) * usageFactor) }
}

/** Even pieces by character, so a test knows how many deltas to expect. */
function piecesOf(text: string, count: number): string[] {
  const n = Math.max(1, Math.min(count, text.length))
  const pieces: string[] = []
  for (let i = 0; i < n; i++) pieces.push(text.slice(Math.floor((i * text.length) / n), Math.floor(((i + 1) * text.length) / n)))
  return pieces
}

function completionBody(dialect: Dialect, model: string, answer: Answer): unknown {
  const { toolUse } = answer
  if (dialect === 'anthropic') {
    return {
      id: 'msg_mock',
      type: 'message',
      role: 'assistant',
      model,
      content:
        toolUse === undefined
          ? [{ type: 'text', text: answer.text }]
          : [{ type: 'tool_use', id: toolUse.id, name: toolUse.name, input: JSON.parse(toolUse.arguments) }],
      stop_reason: toolUse === undefined ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: anthropicUsage(answer, answer.completionTokens),
    }
  }
  const message =
    toolUse === undefined
      ? { role: 'assistant', content: answer.text }
      : { role: 'assistant', content: null, tool_calls: [{ id: toolUse.id, type: 'function', function: { name: toolUse.name, arguments: toolUse.arguments } }] }
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: toolUse === undefined ? 'stop' : 'tool_calls' }],
    usage: openAiUsage(answer),
  }
}

const dataLine = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`
const anthropicEvent = (body: { readonly type: string; readonly [field: string]: unknown }): string => `event: ${body.type}\ndata: ${JSON.stringify(body)}\n\n`

function deltaEvent(dialect: Dialect, model: string, text: string): string {
  if (dialect === 'anthropic') return anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })
  return dataLine({
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
    usage: null,
  })
}

/** A streamed tool call: its start, then its arguments in `pieces`, as each provider sends them. */
function toolUseEvents(dialect: Dialect, model: string, toolUse: ToolUse, pieces: readonly string[]): string[] {
  if (dialect === 'anthropic') {
    return [
      anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: toolUse.id, name: toolUse.name, input: {} } }),
      ...pieces.map((piece) => anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: piece } })),
      anthropicEvent({ type: 'content_block_stop', index: 0 }),
    ]
  }
  const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1_700_000_000, model }
  const delta = (call: unknown) => dataLine({ ...base, choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }], usage: null })
  return [
    delta({ index: 0, id: toolUse.id, type: 'function', function: { name: toolUse.name, arguments: '' } }),
    ...pieces.map((piece) => delta({ index: 0, function: { arguments: piece } })),
  ]
}

/** The whole stream as the provider would send it, one string per SSE event. */
function streamEvents(exchange: Exchange, answer: Answer, pieces: readonly string[]): string[] {
  const { dialect, wire } = exchange
  const model = wire.model ?? ''
  const events: string[] = []
  const { toolUse } = answer
  if (dialect === 'anthropic') {
    events.push(
      anthropicEvent({
        type: 'message_start',
        message: {
          id: 'msg_mock',
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: anthropicUsage(answer, 1),
        },
      }),
    )
    if (toolUse === undefined) {
      events.push(anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }))
      events.push(anthropicEvent({ type: 'ping' }))
      for (const piece of pieces) events.push(deltaEvent(dialect, model, piece))
      events.push(anthropicEvent({ type: 'content_block_stop', index: 0 }))
    } else {
      events.push(...toolUseEvents(dialect, model, toolUse, pieces))
    }
    const stopReason = toolUse === undefined ? 'end_turn' : 'tool_use'
    events.push(
      anthropicEvent({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: answer.completionTokens } }),
    )
    events.push(anthropicEvent({ type: 'message_stop' }))
    return events
  }
  const usage = openAiUsage(answer)
  const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1_700_000_000, model }
  events.push(dataLine({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }], usage: null }))
  if (toolUse === undefined) for (const piece of pieces) events.push(deltaEvent(dialect, model, piece))
  else events.push(...toolUseEvents(dialect, model, toolUse, pieces))
  const finishReason = toolUse === undefined ? 'stop' : 'tool_calls'
  if (dialect === 'mistral') {
    events.push(dataLine({ ...base, choices: [{ index: 0, delta: { content: '' }, finish_reason: finishReason }], usage }))
  } else {
    events.push(dataLine({ ...base, choices: [{ index: 0, delta: {}, finish_reason: finishReason }], usage: null }))
    if (wire.stream_options?.include_usage === true) events.push(dataLine({ ...base, choices: [], usage }))
  }
  events.push('data: [DONE]\n\n')
  return events
}

function streamErrorEvent(dialect: Dialect): string {
  return dialect === 'anthropic'
    ? anthropicEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
    : dataLine({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } })
}

function answerEmbeddings(res: ServerResponse, wire: EmbeddingsWire, fault: FaultKind | undefined): void {
  if (fault === 'server-error') sendJson(res, 500, errorBody('openai', 'server_error', 'The server had an error while processing your request.'))
  else if (fault === 'bad-request') sendJson(res, 400, errorBody('openai', 'invalid_request_error', 'The mock refused this request on purpose.'))
  else sendJson(res, 200, embeddingsAnswer(wire))
}

export async function startMockUpstream(options: MockUpstreamOptions = {}): Promise<MockUpstream> {
  const latencyMs = options.latencyMs ?? 0
  const chunkCount = options.chunks ?? 4
  const slowFirstByteMs = options.slowFirstByteMs ?? 10_000
  const slowStreamMs = options.slowStreamMs ?? 20
  const isRecording = options.record ?? true
  const usageFactor = options.usageFactor ?? 1
  const rateLimitRetryAfterS = options.rateLimitRetryAfterS ?? 0

  const requests: RecordedRequest[] = []
  const faults: FaultKind[] = []
  const abortWaiters: { count: number; resolve: () => void }[] = []
  let aborted = 0

  const noteAbort = (): void => {
    aborted++
    for (let i = abortWaiters.length - 1; i >= 0; i--) {
      const waiter = abortWaiters[i] as { count: number; resolve: () => void }
      if (aborted >= waiter.count) {
        abortWaiters.splice(i, 1)
        waiter.resolve()
      }
    }
  }

  const destroy = (exchange: Exchange): void => {
    exchange.isClosedByMock = true
    exchange.req.socket.destroy()
  }

  const answer = (exchange: Exchange, fault: FaultKind | undefined): void => {
    const { res, dialect, wire } = exchange
    const model = wire.model ?? ''
    if (fault === 'server-error') {
      sendJson(res, 500, errorBody(dialect, dialect === 'anthropic' ? 'api_error' : 'server_error', 'The server had an error while processing your request.'))
      return
    }
    if (fault === 'rate-limit') {
      sendJson(res, 429, errorBody(dialect, 'rate_limit_error', 'Rate limit reached for requests.'), { 'retry-after': String(rateLimitRetryAfterS) })
      return
    }
    if (fault === 'context-length') {
      const message = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."
      sendJson(
        res,
        400,
        dialect === 'openai'
          ? { error: { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }
          : errorBody(dialect, 'invalid_request_error', message),
      )
      return
    }
    if (fault === 'bad-request') {
      sendJson(
        res,
        400,
        errorBody(dialect, 'invalid_request_error', 'The mock refused this request on purpose.', { param: 'messages', code: 'context_length_exceeded' }),
      )
      return
    }
    if (fault === 'not-found') {
      const type = dialect === 'anthropic' ? 'not_found_error' : 'invalid_request_error'
      sendJson(res, 404, errorBody(dialect, type, `The model \`${model}\` does not exist or you do not have access to it.`, { code: 'model_not_found' }))
      return
    }
    if (fault === 'unprocessable') {
      sendJson(res, 422, errorBody(dialect, 'invalid_request_error', 'The mock cannot process this body.'))
      return
    }
    const counted = answerOf(exchange, fault === 'invalid-json', usageFactor)
    const cache = options.promptCache
    const result: Answer =
      cache === undefined
        ? counted
        : {
            ...counted,
            cacheRead: Math.min(cache.read, counted.promptTokens),
            cacheWrite: Math.min(cache.write ?? 0, Math.max(0, counted.promptTokens - cache.read)),
          }
    if (wire.stream !== true) {
      const body = JSON.stringify(completionBody(dialect, model, result))
      if (fault === 'stream-cut') {
        res.writeHead(200, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(body)) })
        res.write(body.slice(0, Math.floor(body.length / 2)), () => destroy(exchange))
        return
      }
      if (fault === 'stream-stall') {
        res.writeHead(200, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(body)) })
        return
      }
      if (fault === 'slow-stream') {
        res.writeHead(200, { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(body) + 1_000_000) })
        const timer = setInterval(() => res.write(' '), slowStreamMs)
        res.on('close', () => clearInterval(timer))
        return
      }
      res.writeHead(200, JSON_HEADERS)
      res.end(body)
      return
    }
    res.writeHead(200, SSE_HEADERS)
    if (fault === 'stream-error') {
      res.end(streamErrorEvent(dialect))
      return
    }
    const pieces = piecesOf(result.toolUse?.arguments ?? result.text, chunkCount)
    const events = streamEvents(exchange, result, pieces)
    if (fault === 'stream-stall') {
      res.write(events.slice(0, events.lastIndexOf(deltaEvent(dialect, model, pieces.at(-1) ?? '')) + 1).join(''))
      return
    }
    if (fault === 'stream-cut') {
      // Everything up to the middle of the text, then a dead socket.
      const cut = Math.max(1, Math.ceil(events.length / 2))
      res.write(events.slice(0, cut).join(''), () => destroy(exchange))
      return
    }
    if (fault === 'slow-stream') {
      res.write(events[0] ?? '')
      const timer = setInterval(() => res.write(deltaEvent(dialect, model, 'more ')), slowStreamMs)
      res.on('close', () => clearInterval(timer))
      return
    }
    res.end(events.join(''))
  }

  const respond = (exchange: Exchange): void => {
    const { req, res, dialect, wire } = exchange
    const problem = wireProblem(dialect, req.headers, wire)
    if (problem !== undefined) {
      sendJson(res, problem.status, errorBody(dialect, problem.type, problem.message))
      return
    }
    const fault = faults.shift()
    if (fault === 'reset') {
      destroy(exchange)
      return
    }
    const delay = (fault === 'slow-first-byte' ? slowFirstByteMs : 0) + latencyMs
    if (delay === 0) {
      answer(exchange, fault)
      return
    }
    const timer = setTimeout(() => answer(exchange, fault), delay)
    res.on('close', () => clearTimeout(timer))
  }

  let waiting: Exchange[] | undefined

  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      const path = req.url ?? '/'
      const route = path.split('?')[0]!
      // Azure OpenAI: Chat Completions under the deployment's path, the key in `api-key`.
      const isAzure = /^\/openai\/deployments\/[^/]+\/chat\/completions$/.test(route) && new URL(path, 'http://mock').searchParams.has('api-version')
      const dialectOfPath: Dialect | undefined = route.endsWith('/v1/messages')
        ? 'anthropic'
        : route.endsWith('/v1/chat/completions') || isAzure
          ? 'openai'
          : undefined
      let wire: WireRequest
      try {
        wire = JSON.parse(Buffer.concat(parts).toString('utf8')) as WireRequest
      } catch {
        sendJson(res, 400, errorBody(dialectOfPath ?? 'openai', 'invalid_request_error', 'The body is not valid JSON.'))
        return
      }
      if (isRecording) requests.push({ method: req.method ?? '', path, headers: req.headers, body: wire })
      if (path.endsWith('/v1/embeddings')) {
        answerEmbeddings(res, wire as EmbeddingsWire, faults.shift())
        return
      }
      if (dialectOfPath === undefined) {
        sendJson(res, 404, { error: { message: `Unknown path ${path}`, type: 'invalid_request_error' } })
        return
      }
      const dialect: Dialect = dialectOfPath === 'openai' && (wire.model ?? '').startsWith('mistral') ? 'mistral' : dialectOfPath
      const exchange: Exchange = { req, res, dialect, wire, isClosedByMock: false }
      res.on('close', () => {
        if (!res.writableFinished && !exchange.isClosedByMock) noteAbort()
      })
      if (waiting === undefined) respond(exchange)
      else waiting.push(exchange)
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get aborted() {
      return aborted
    },
    hold() {
      waiting ??= []
    },
    release() {
      const queue = waiting ?? []
      waiting = undefined
      for (const exchange of queue) respond(exchange)
    },
    get held() {
      return waiting?.length ?? 0
    },
    fail(kind, count = 1) {
      for (let i = 0; i < count; i++) faults.push(kind)
    },
    whenAborted(count = 1) {
      if (aborted >= count) return Promise.resolve()
      return new Promise((resolve) => abortWaiters.push({ count, resolve }))
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve, reject) => server.close((err) => (err === undefined ? resolve() : reject(err))))
    },
  }
}
