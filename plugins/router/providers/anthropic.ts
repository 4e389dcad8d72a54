// Anthropic's Messages wire format: POST /v1/messages with system text at the top level, a JSON
// answer of content blocks, or a stream of typed events from message_start to message_stop.
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { ContentPart, Message, ToolCall, ToolChoice } from '../../../proxy/pipeline/ai-request.ts'
import type { FinishReason, ProviderResult, TokenUsage } from '../../../proxy/pipeline/completion.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import type { Upstream } from '../../../proxy/pipeline/upstream.ts'
import { jsonInstructionOf, upstreamIdOf, type ProviderAdapter, type ProviderRequest } from './adapter.ts'
import { endpointOf, postJson, urlOf } from './endpoint.ts'
import { parseAnswer, streamError } from './provider-error.ts'
import { maxTokensFor } from '../logic/sampling.ts'
import { eventBatches } from './sse.ts'

interface AnthropicOptions {
  readonly baseUrl: string
  readonly apiKey: string
  /** The model table in force: what Anthropic knows each model by, and its bounds. */
  readonly catalog: ModelCatalog
}

const LABEL = 'anthropic'
export const ANTHROPIC_API_VERSION = '2023-06-01'
// The gateway accepts 0 to 2; Anthropic accepts 0 to 1.
const MAX_TEMPERATURE = 1

interface WireUsage {
  /** The input not read from or written to the prompt cache. */
  readonly input_tokens?: unknown
  readonly output_tokens?: unknown
  readonly cache_read_input_tokens?: unknown
  readonly cache_creation_input_tokens?: unknown
}

const countOf = (value: unknown): number => (typeof value === 'number' && value > 0 ? value : 0)

/**
 * The gateway's usage from Anthropic's: its cache reads and writes come on top of input_tokens,
 * so they are added to the prompt's count and noted as its cached parts.
 */
function usageOf(input: number, output: number, wire: WireUsage | undefined): TokenUsage {
  const read = countOf(wire?.cache_read_input_tokens)
  const written = countOf(wire?.cache_creation_input_tokens)
  if (read === 0 && written === 0) return { promptTokens: input, completionTokens: output }
  return {
    promptTokens: input + read + written,
    completionTokens: output,
    ...(read > 0 && { cachedInputTokens: read }),
    ...(written > 0 && { cacheWriteTokens: written }),
  }
}

interface WireBlock {
  readonly type?: unknown
  readonly text?: unknown
  readonly id?: unknown
  readonly name?: unknown
  readonly input?: unknown
}

interface WireMessage {
  readonly content?: readonly WireBlock[]
  readonly stop_reason?: unknown
  readonly usage?: WireUsage
}

interface WireEvent {
  readonly type?: unknown
  readonly index?: unknown
  readonly message?: { readonly usage?: WireUsage }
  readonly content_block?: WireBlock
  readonly delta?: { readonly type?: unknown; readonly text?: unknown; readonly partial_json?: unknown; readonly stop_reason?: unknown }
  readonly usage?: WireUsage
}

type WireContent = string | unknown[]

interface WireTurn {
  readonly role: 'user' | 'assistant'
  content: WireContent
}

/** Anthropic's stop reasons in the gateway's terms; `stop_sequence` and `pause_turn` are ends too. */
export function finishReasonOf(reason: unknown): FinishReason | undefined {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool_calls'
    case 'refusal':
      return 'content_filter'
    default:
      return undefined
  }
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s

function wirePart(part: ContentPart): unknown {
  if (part.type === 'text') return { type: 'text', text: part.text }
  const data = DATA_URL.exec(part.url)
  return data === null
    ? { type: 'image', source: { type: 'url', url: part.url } }
    : { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } }
}

function inputOf(call: ToolCall): unknown {
  try {
    return call.arguments === '' ? {} : JSON.parse(call.arguments)
  } catch {
    // Anthropic takes the input as an object; arguments a model garbled are passed on as text.
    return { arguments: call.arguments }
  }
}

function wireTurn(message: Message): WireTurn {
  if (message.role === 'tool') {
    return { role: 'user', content: [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }] }
  }
  const role = message.role === 'assistant' ? 'assistant' : 'user'
  if (message.toolCalls !== undefined) {
    const blocks: unknown[] = message.content === '' ? [] : [{ type: 'text', text: message.content }]
    for (const call of message.toolCalls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call) })
    return { role, content: blocks }
  }
  return { role, content: message.parts?.map(wirePart) ?? message.content }
}

const asBlocks = (content: WireContent): unknown[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content)

/**
 * System messages become the top-level `system` text; the rest keep their order. Tool results
 * travel in user turns, so a result and the user turn beside it are joined into one turn.
 */
function toWire(request: ProviderRequest): { system: string | undefined; messages: unknown[] } {
  let system: string | undefined
  const messages: WireTurn[] = []
  let isAfterToolResult = false
  for (const message of request.messages) {
    if (message.role === 'system') {
      system = system === undefined ? message.content : `${system}\n\n${message.content}`
      continue
    }
    const turn = wireTurn(message)
    const previous = messages.at(-1)
    const isTool = message.role === 'tool'
    if (previous?.role === 'user' && turn.role === 'user' && (isTool || isAfterToolResult)) {
      previous.content = [...asBlocks(previous.content), ...asBlocks(turn.content)]
    } else {
      messages.push(turn)
    }
    isAfterToolResult = isTool
  }
  // No native JSON flag: the instruction goes last in the system text, and the answer is checked.
  if (request.mode === 'json') {
    const instruction = jsonInstructionOf(request)
    system = system === undefined ? instruction : `${system}\n\n${instruction}`
  }
  return { system, messages }
}

function wireToolChoice(choice: ToolChoice | undefined): unknown {
  if (choice === undefined) return undefined
  if (typeof choice === 'object') return { type: 'tool', name: choice.name }
  return { type: choice === 'required' ? 'any' : choice }
}

function bodyOf(request: ProviderRequest, isStream: boolean, catalog: ModelCatalog): string {
  const { system, messages } = toWire(request)
  return JSON.stringify({
    model: upstreamIdOf(request.model, catalog),
    system,
    messages,
    max_tokens: maxTokensFor(catalog.info(request.model), request.maxTokens, request.promptTokens),
    temperature: request.temperature === undefined ? undefined : Math.min(request.temperature, MAX_TEMPERATURE),
    top_p: request.topP,
    stop_sequences: request.stop,
    tools: request.tools?.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
    tool_choice: wireToolChoice(request.toolChoice),
    metadata: request.user === undefined ? undefined : { user_id: request.user },
    stream: isStream ? true : undefined,
  })
}

function answerOf(answer: WireMessage): Omit<ProviderResult, 'usage'> | undefined {
  if (!Array.isArray(answer.content)) return undefined
  let text = ''
  const toolCalls: ToolCall[] = []
  for (const block of answer.content) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text
    else if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) })
    }
  }
  const finishReason = finishReasonOf(answer.stop_reason)
  return {
    text,
    ...(toolCalls.length > 0 && { toolCalls }),
    ...(finishReason !== undefined && { finishReason }),
  }
}

export function createAnthropicAdapter(upstream: Upstream, options: AnthropicOptions): ProviderAdapter {
  const { apiKey } = options
  const endpoint = endpointOf(LABEL, options.baseUrl, '/v1/messages', apiKey, {
    'x-api-key': apiKey,
    'anthropic-version': ANTHROPIC_API_VERSION,
  })

  return {
    target: urlOf(endpoint),

    async complete(request, signal): Promise<ProviderResult> {
      const response = await postJson(upstream, endpoint, bodyOf(request, false, options.catalog), signal, request.traceHeaders)
      const answer = parseAnswer(LABEL, await response.text()) as WireMessage
      const result = answerOf(answer)
      if (result === undefined) throw new UpstreamError(`${LABEL} sent an answer without content.`, false)
      const input = answer.usage?.input_tokens
      const output = answer.usage?.output_tokens
      return typeof input === 'number' && typeof output === 'number' ? { ...result, usage: usageOf(input, output, answer.usage) } : result
    },

    stream(request, signal) {
      let inputTokens: unknown
      let startUsage: WireUsage | undefined
      let outputTokens: unknown
      let isFinished = false
      // Content block index → the tool call's own index among the answer's tool calls.
      const toolIndexOfBlock = new Map<unknown, number>()
      return eventBatches(() => postJson(upstream, endpoint, bodyOf(request, true, options.catalog), signal, request.traceHeaders), LABEL, {
        onEvent(event, out) {
          if (event.event === 'ping') return
          const data = parseAnswer(LABEL, event.data) as WireEvent
          switch (data.type) {
            case 'message_start':
              startUsage = data.message?.usage
              inputTokens = startUsage?.input_tokens
              break
            case 'content_block_start': {
              const block = data.content_block
              if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
                const index = toolIndexOfBlock.size
                toolIndexOfBlock.set(data.index, index)
                out.push({ type: 'tool_call', delta: { index, id: block.id, name: block.name, arguments: '' } })
              }
              break
            }
            case 'content_block_delta':
              if (data.delta?.type === 'text_delta' && typeof data.delta.text === 'string' && data.delta.text.length > 0) {
                out.push({ type: 'delta', text: data.delta.text })
              } else if (data.delta?.type === 'input_json_delta' && typeof data.delta.partial_json === 'string') {
                const index = toolIndexOfBlock.get(data.index)
                if (index !== undefined && data.delta.partial_json.length > 0) {
                  out.push({ type: 'tool_call', delta: { index, arguments: data.delta.partial_json } })
                }
              }
              break
            case 'message_delta': {
              // output_tokens here is the running total for the whole message.
              outputTokens = data.usage?.output_tokens
              const reason = finishReasonOf(data.delta?.stop_reason)
              if (reason !== undefined) out.push({ type: 'finish', reason })
              break
            }
            case 'message_stop':
              isFinished = true
              break
            case 'error':
              throw streamError(LABEL, data, apiKey)
          }
        },
        onEnd(out) {
          if (!isFinished) throw new UpstreamError(`${LABEL} ended its stream before it was complete.`, true)
          if (typeof inputTokens === 'number' && typeof outputTokens === 'number') {
            out.push({ type: 'usage', usage: usageOf(inputTokens, outputTokens, startUsage) })
          }
        },
      })
    },
  }
}
