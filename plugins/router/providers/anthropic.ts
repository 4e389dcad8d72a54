// Anthropic's Messages wire format: POST /v1/messages with system text at the top level, a JSON
// answer of content blocks, or a stream of typed events from message_start to message_stop.
import type { Message } from '../../../proxy/ai-request.ts'
import type { ProviderEvent, ProviderResult } from '../../../proxy/completion.ts'
import { UpstreamError } from '../../../proxy/errors.ts'
import type { Upstream } from '../../../proxy/upstream.ts'
import { JSON_MODE_INSTRUCTION, type ProviderAdapter, type ProviderRequest } from './adapter.ts'
import { endpointOf, postJson } from './endpoint.ts'
import { parseAnswer, streamError } from './provider-error.ts'
import { readEvents } from './sse.ts'

export interface AnthropicOptions {
  readonly baseUrl: string
  readonly apiKey: string
}

const LABEL = 'anthropic'
const API_VERSION = '2023-06-01'
// The gateway accepts 0 to 2; Anthropic accepts 0 to 1.
const MAX_TEMPERATURE = 1

interface WireUsage {
  readonly input_tokens?: unknown
  readonly output_tokens?: unknown
}

interface WireMessage {
  readonly content?: readonly { readonly type?: unknown; readonly text?: unknown }[]
  readonly usage?: WireUsage
}

interface WireEvent {
  readonly type?: unknown
  readonly message?: { readonly usage?: WireUsage }
  readonly delta?: { readonly type?: unknown; readonly text?: unknown }
  readonly usage?: WireUsage
}

/** System messages become the top-level `system` text; the rest keep their order. */
function toWire(request: ProviderRequest): { system: string | undefined; messages: Message[] } {
  let system: string | undefined
  const messages: Message[] = []
  for (const message of request.messages) {
    if (message.role === 'system') system = system === undefined ? message.content : `${system}\n\n${message.content}`
    else messages.push(message)
  }
  // No native JSON flag: the instruction goes last in the system text, and the answer is checked.
  if (request.mode === 'json') system = system === undefined ? JSON_MODE_INSTRUCTION : `${system}\n\n${JSON_MODE_INSTRUCTION}`
  return { system, messages }
}

function bodyOf(request: ProviderRequest, isStream: boolean): string {
  const { system, messages } = toWire(request)
  return JSON.stringify({
    model: request.model,
    system,
    messages,
    max_tokens: request.maxTokens,
    temperature: Math.min(request.temperature, MAX_TEMPERATURE),
    stream: isStream ? true : undefined,
  })
}

function textOf(answer: WireMessage): string | undefined {
  if (!Array.isArray(answer.content)) return undefined
  let text = ''
  for (const block of answer.content) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text
  }
  return text
}

export function createAnthropicAdapter(upstream: Upstream, options: AnthropicOptions): ProviderAdapter {
  const { apiKey } = options
  const endpoint = endpointOf(LABEL, options.baseUrl, '/v1/messages', apiKey, {
    'x-api-key': apiKey,
    'anthropic-version': API_VERSION,
  })

  return {
    async complete(request, signal): Promise<ProviderResult> {
      const response = await postJson(upstream, endpoint, bodyOf(request, false), signal)
      const answer = parseAnswer(LABEL, await response.text()) as WireMessage
      const text = textOf(answer)
      if (text === undefined) throw new UpstreamError(`${LABEL} sent an answer without content.`, false)
      const input = answer.usage?.input_tokens
      const output = answer.usage?.output_tokens
      return typeof input === 'number' && typeof output === 'number'
        ? { text, usage: { promptTokens: input, completionTokens: output } }
        : { text }
    },

    async *stream(request, signal): AsyncGenerator<ProviderEvent, void, undefined> {
      const response = await postJson(upstream, endpoint, bodyOf(request, true), signal)
      let inputTokens: unknown
      let outputTokens: unknown
      let isFinished = false
      for await (const event of readEvents(response.chunks(), LABEL)) {
        if (event.event === 'ping') continue
        const data = parseAnswer(LABEL, event.data) as WireEvent
        switch (data.type) {
          case 'message_start':
            inputTokens = data.message?.usage?.input_tokens
            break
          case 'content_block_delta':
            if (data.delta?.type === 'text_delta' && typeof data.delta.text === 'string' && data.delta.text.length > 0) {
              yield { type: 'delta', text: data.delta.text }
            }
            break
          case 'message_delta':
            // output_tokens here is the running total for the whole message.
            outputTokens = data.usage?.output_tokens
            break
          case 'message_stop':
            isFinished = true
            break
          case 'error':
            throw streamError(LABEL, data, apiKey)
        }
      }
      if (!isFinished) throw new UpstreamError(`${LABEL} ended its stream before it was complete.`, true)
      if (typeof inputTokens === 'number' && typeof outputTokens === 'number') {
        yield { type: 'usage', usage: { promptTokens: inputTokens, completionTokens: outputTokens } }
      }
    },
  }
}
