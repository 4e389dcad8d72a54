// The Chat Completions wire format, spoken by OpenAI and by Mistral: POST /v1/chat/completions,
// a JSON answer or SSE chunks ending in `data: [DONE]`.
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { ContentPart, Message, ToolCall, ToolChoice } from '../../../proxy/pipeline/ai-request.ts'
import type { FinishReason, ProviderResult, TokenUsage } from '../../../proxy/pipeline/completion.ts'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import type { ModelName } from '../../../proxy/pipeline/models.ts'
import type { Upstream } from '../../../proxy/pipeline/upstream.ts'
import { JSON_MODE_INSTRUCTION, upstreamIdOf, type ProviderAdapter, type ProviderRequest } from './adapter.ts'
import { endpointOf, postJson, urlOf, type Endpoint } from './endpoint.ts'
import { parseAnswer, streamError } from './provider-error.ts'
import { eventBatches } from './sse.ts'

interface ChatCompletionsOptions {
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
  /** Azure OpenAI: one URL per model, through its Azure deployment, and the key in `api-key`. */
  readonly azure?: AzureRoute | undefined
  /** The model table in force: what the provider knows each model by. */
  readonly catalog: ModelCatalog
}

interface AzureRoute {
  readonly apiVersion: string
  /** The Azure deployment of each model served. */
  readonly deployments: Readonly<Record<ModelName, string>>
}

interface WireUsage {
  readonly prompt_tokens?: unknown
  readonly completion_tokens?: unknown
  /** OpenAI: the part of prompt_tokens read from its prompt cache. */
  readonly prompt_tokens_details?: { readonly cached_tokens?: unknown } | null
}

interface WireToolCall {
  readonly index?: unknown
  readonly id?: unknown
  readonly function?: { readonly name?: unknown; readonly arguments?: unknown }
}

interface WireCompletion {
  readonly choices?: readonly {
    readonly message?: { readonly content?: unknown; readonly tool_calls?: readonly WireToolCall[] | null }
    readonly finish_reason?: unknown
  }[]
  readonly usage?: WireUsage | null
}

interface WireChunk {
  readonly choices?: readonly {
    readonly delta?: { readonly content?: unknown; readonly tool_calls?: readonly WireToolCall[] | null }
    readonly finish_reason?: unknown
  }[]
  readonly usage?: WireUsage | null
  readonly error?: unknown
}

const STREAM_USAGE = { include_usage: true }
const JSON_OBJECT = { type: 'json_object' }
const JSON_MODE_MESSAGE: Message = { role: 'system', content: JSON_MODE_INSTRUCTION }

function usageOf(usage: WireUsage | null | undefined): TokenUsage | undefined {
  if (typeof usage?.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined
  const cached = usage.prompt_tokens_details?.cached_tokens
  return typeof cached === 'number' && cached > 0
    ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cachedInputTokens: Math.min(cached, usage.prompt_tokens) }
    : { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }
}

/** OpenAI's reasons, and Mistral's (`model_length` is its context window running out). */
export function finishReasonOf(reason: unknown): FinishReason | undefined {
  switch (reason) {
    case 'stop':
      return 'stop'
    case 'length':
    case 'model_length':
      return 'length'
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls'
    case 'content_filter':
      return 'content_filter'
    default:
      return undefined
  }
}

function wirePart(part: ContentPart): unknown {
  return part.type === 'text'
    ? { type: 'text', text: part.text }
    : { type: 'image_url', image_url: part.detail === undefined ? { url: part.url } : { url: part.url, detail: part.detail } }
}

/** A message as Chat Completions takes it; the plain `{role, content}` object itself when it has nothing more. */
function wireMessage(message: Message): unknown {
  if (message.parts === undefined && message.toolCalls === undefined && message.toolCallId === undefined) return message
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content }
  if (message.toolCalls !== undefined) {
    return {
      role: 'assistant',
      content: message.content === '' ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
    }
  }
  return { role: message.role, content: message.parts?.map(wirePart) ?? message.content }
}

function wireToolChoice(choice: ToolChoice | undefined, label: ChatCompletionsOptions['label']): unknown {
  if (choice === undefined) return undefined
  if (typeof choice === 'object') return { type: 'function', function: { name: choice.name } }
  // Mistral's word for "some tool must be called".
  return choice === 'required' && label === 'mistral' ? 'any' : choice
}

function responseFormatOf(request: ProviderRequest): unknown {
  if (request.mode !== 'json') return undefined
  const schema = request.jsonSchema
  if (schema === undefined) return JSON_OBJECT
  return { type: 'json_schema', json_schema: { name: schema.name, schema: schema.schema, strict: schema.strict } }
}

function toolCallsOf(wire: readonly WireToolCall[] | null | undefined): ToolCall[] | undefined {
  if (!Array.isArray(wire) || wire.length === 0) return undefined
  const calls: ToolCall[] = []
  for (const call of wire) {
    const name = call.function?.name
    const args = call.function?.arguments
    if (typeof call.id !== 'string' || typeof name !== 'string') continue
    calls.push({ id: call.id, name, arguments: typeof args === 'string' ? args : '' })
  }
  return calls.length === 0 ? undefined : calls
}

/** Each model's endpoint, built once: `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=…`. */
function azureEndpoints(options: ChatCompletionsOptions, azure: AzureRoute): (model: ModelName) => Endpoint {
  const byModel = new Map<ModelName, Endpoint>()
  const version = encodeURIComponent(azure.apiVersion)
  for (const [model, deployment] of Object.entries(azure.deployments)) {
    const path = `/openai/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${version}`
    byModel.set(model, endpointOf(options.label, options.baseUrl, path, options.apiKey, { 'api-key': options.apiKey }))
  }
  return (model) => {
    const endpoint = byModel.get(model)
    if (endpoint === undefined) throw new UpstreamError(`No Azure deployment is configured for ${model}.`, false)
    return endpoint
  }
}

export function createChatCompletionsAdapter(upstream: Upstream, options: ChatCompletionsOptions): ProviderAdapter {
  const { label, apiKey, azure } = options
  const endpoint = endpointOf(label, options.baseUrl, '/v1/chat/completions', apiKey, { authorization: `Bearer ${apiKey}` })
  const endpointFor = azure === undefined ? () => endpoint : azureEndpoints(options, azure)
  const isMistral = label === 'mistral'

  // Fields left undefined are dropped by JSON.stringify, which spares a copy per optional field.
  const bodyOf = (request: ProviderRequest, isStream: boolean): string => {
    const isJson = request.mode === 'json'
    const messages = request.messages.map(wireMessage)
    return JSON.stringify({
      model: upstreamIdOf(request.model, options.catalog),
      messages: isJson ? [JSON_MODE_MESSAGE, ...messages] : messages,
      temperature: request.temperature === undefined ? undefined : Math.min(request.temperature, options.maxTemperature),
      top_p: request.topP,
      // OpenAI's reasoning models refuse max_tokens; every OpenAI chat model takes this instead.
      [isMistral ? 'max_tokens' : 'max_completion_tokens']: request.maxTokens,
      stop: request.stop,
      [isMistral ? 'random_seed' : 'seed']: request.seed,
      tools: request.tools?.map((tool) => ({ type: 'function', function: tool })),
      tool_choice: wireToolChoice(request.toolChoice, label),
      user: isMistral ? undefined : request.user,
      stream: isStream,
      stream_options: isStream && options.asksForStreamUsage ? STREAM_USAGE : undefined,
      response_format: responseFormatOf(request),
    })
  }

  return {
    target: azure === undefined ? urlOf(endpoint) : `${new URL(options.baseUrl).origin}/openai/deployments/…`,

    async complete(request, signal): Promise<ProviderResult> {
      const response = await postJson(upstream, endpointFor(request.model), bodyOf(request, false), signal, request.traceHeaders)
      const answer = parseAnswer(label, await response.text()) as WireCompletion
      const choice = answer.choices?.[0]
      const content = choice?.message?.content
      const toolCalls = toolCallsOf(choice?.message?.tool_calls)
      // A message that only calls tools has `content: null`.
      const isToolCallOnly = toolCalls !== undefined && (content === null || content === undefined)
      if (typeof content !== 'string' && !isToolCallOnly) throw new UpstreamError(`${label} sent an answer without text.`, false)
      const text = typeof content === 'string' ? content : ''
      const usage = usageOf(answer.usage)
      const finishReason = finishReasonOf(choice?.finish_reason)
      return {
        text,
        ...(usage !== undefined && { usage }),
        ...(toolCalls !== undefined && { toolCalls }),
        ...(finishReason !== undefined && { finishReason }),
      }
    },

    stream(request, signal) {
      let isFinished = false
      return eventBatches(() => postJson(upstream, endpointFor(request.model), bodyOf(request, true), signal, request.traceHeaders), label, {
        onEvent(event, out) {
          if (event.data === '[DONE]') {
            isFinished = true
            return
          }
          const chunk = parseAnswer(label, event.data) as WireChunk
          if (chunk.error !== undefined && chunk.error !== null) throw streamError(label, chunk, apiKey)
          const choice = chunk.choices?.[0]
          const text = choice?.delta?.content
          if (typeof text === 'string' && text.length > 0) out.push({ type: 'delta', text })
          const calls = choice?.delta?.tool_calls
          if (Array.isArray(calls)) {
            for (const call of calls) {
              const index = typeof call.index === 'number' ? call.index : 0
              const name = call.function?.name
              const args = call.function?.arguments
              out.push({
                type: 'tool_call',
                delta: {
                  index,
                  ...(typeof call.id === 'string' && { id: call.id }),
                  ...(typeof name === 'string' && { name }),
                  arguments: typeof args === 'string' ? args : '',
                },
              })
            }
          }
          const reason = finishReasonOf(choice?.finish_reason)
          if (reason !== undefined) out.push({ type: 'finish', reason })
          const usage = usageOf(chunk.usage)
          if (usage !== undefined) out.push({ type: 'usage', usage })
        },
        onEnd() {
          if (!isFinished) throw new UpstreamError(`${label} ended its stream before it was complete.`, true)
        },
      })
    },
  }
}
