// The Chat Completions wire format, spoken by OpenAI and by Mistral: POST /v1/chat/completions,
// a JSON answer or SSE chunks ending in `data: [DONE]`.
import type { Message } from '../../../proxy/ai-request.ts'
import type { ProviderEvent, ProviderResult, TokenUsage } from '../../../proxy/completion.ts'
import { UpstreamError } from '../../../proxy/errors.ts'
import type { Upstream } from '../../../proxy/upstream.ts'
import { JSON_MODE_INSTRUCTION, type ProviderAdapter, type ProviderRequest } from './adapter.ts'
import { endpointOf, postJson } from './endpoint.ts'
import { parseAnswer, streamError } from './provider-error.ts'
import { readEvents } from './sse.ts'

export interface ChatCompletionsOptions {
  readonly label: 'openai' | 'mistral'
  readonly baseUrl: string
  readonly apiKey: string
  /**
   * OpenAI reports usage in a stream only when asked with stream_options; Mistral always puts it
   * on the last chunk and rejects the unknown field.
   */
  readonly asksForStreamUsage: boolean
  /** The gateway accepts 0 to 2; Mistral documents 0 to 1. */
  readonly maxTemperature: number
}

interface WireUsage {
  readonly prompt_tokens?: unknown
  readonly completion_tokens?: unknown
}

interface WireCompletion {
  readonly choices?: readonly { readonly message?: { readonly content?: unknown } }[]
  readonly usage?: WireUsage | null
}

interface WireChunk {
  readonly choices?: readonly { readonly delta?: { readonly content?: unknown } }[]
  readonly usage?: WireUsage | null
  readonly error?: unknown
}

const STREAM_USAGE = { include_usage: true }
const JSON_OBJECT = { type: 'json_object' }
const JSON_MODE_MESSAGE: Message = { role: 'system', content: JSON_MODE_INSTRUCTION }

function usageOf(usage: WireUsage | null | undefined): TokenUsage | undefined {
  if (typeof usage?.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined
  return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
}

export function createChatCompletionsAdapter(upstream: Upstream, options: ChatCompletionsOptions): ProviderAdapter {
  const { label, apiKey } = options
  const endpoint = endpointOf(label, options.baseUrl, '/v1/chat/completions', apiKey, { authorization: `Bearer ${apiKey}` })

  // Fields left undefined are dropped by JSON.stringify, which spares a copy per optional field.
  const bodyOf = (request: ProviderRequest, isStream: boolean): string => {
    const isJson = request.mode === 'json'
    return JSON.stringify({
      model: request.model,
      messages: isJson ? [JSON_MODE_MESSAGE, ...request.messages] : request.messages,
      temperature: Math.min(request.temperature, options.maxTemperature),
      max_tokens: request.maxTokens,
      stream: isStream,
      stream_options: isStream && options.asksForStreamUsage ? STREAM_USAGE : undefined,
      response_format: isJson ? JSON_OBJECT : undefined,
    })
  }

  return {
    async complete(request, signal): Promise<ProviderResult> {
      const response = await postJson(upstream, endpoint, bodyOf(request, false), signal)
      const answer = parseAnswer(label, await response.text()) as WireCompletion
      const text = answer.choices?.[0]?.message?.content
      if (typeof text !== 'string') throw new UpstreamError(`${label} sent an answer without text.`, false)
      const usage = usageOf(answer.usage)
      return usage === undefined ? { text } : { text, usage }
    },

    async *stream(request, signal): AsyncGenerator<ProviderEvent, void, undefined> {
      const response = await postJson(upstream, endpoint, bodyOf(request, true), signal)
      let isFinished = false
      for await (const event of readEvents(response.chunks(), label)) {
        if (event.data === '[DONE]') {
          isFinished = true
          continue
        }
        const chunk = parseAnswer(label, event.data) as WireChunk
        if (chunk.error !== undefined && chunk.error !== null) throw streamError(label, chunk, apiKey)
        const text = chunk.choices?.[0]?.delta?.content
        if (typeof text === 'string' && text.length > 0) yield { type: 'delta', text }
        const usage = usageOf(chunk.usage)
        if (usage !== undefined) yield { type: 'usage', usage }
      }
      if (!isFinished) throw new UpstreamError(`${label} ended its stream before it was complete.`, true)
    },
  }
}
