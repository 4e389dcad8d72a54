// What a model call produces, in the gateway's own terms. Provider adapters translate their wire
// formats into these; the core renders them as the spec's Completion result or as SSE events.
import type { ToolCall } from './ai-request.ts'
import type { ModelName } from './models.ts'

export type ServingProvider = 'openai' | 'anthropic' | 'mistral' | 'local'

/** A provider's count. `promptTokens` is every input token, the cached ones included. */
export interface TokenUsage {
  promptTokens: number
  completionTokens: number
  /** Of promptTokens, read from the provider's prompt cache (priced at its cached-input rate). */
  cachedInputTokens?: number | undefined
  /** Of promptTokens, written to the provider's prompt cache (Anthropic; priced at its cache-write rate). */
  cacheWriteTokens?: number | undefined
}

/** The provider and model that served a call: the route's first choice or its fallback. */
export interface ServedBy {
  readonly provider: ServingProvider
  readonly model: ModelName
}

/** Why the model stopped: its own end, maxTokens, a tool call, or the provider's content filter. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter'

/**
 * A piece of a tool call in a stream. Pieces of one call share its `index`; the first carries the
 * call's id and name, and the `arguments` pieces add up to the call's JSON input.
 */
export interface ToolCallDelta {
  readonly index: number
  readonly id?: string | undefined
  readonly name?: string | undefined
  readonly arguments: string
}

/** One event of a provider stream: text, a piece of a tool call, why it ended, or usage figures. */
export type ProviderEvent =
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'tool_call'; readonly delta: ToolCallDelta }
  | { readonly type: 'finish'; readonly reason: FinishReason }
  | { readonly type: 'usage'; readonly usage: TokenUsage }
  /** First, and only when a fallback serves the stream instead of the route's first choice. */
  | ({ readonly type: 'served' } & ServedBy)

export interface ProviderResult {
  readonly text: string
  /** Absent when the provider sent none; the core then counts tokens itself. */
  readonly usage?: TokenUsage
  /** Present when the model called tools. */
  readonly toolCalls?: readonly ToolCall[] | undefined
  /** Absent when the provider did not say; read as `stop` (or `tool_calls` with tool calls). */
  readonly finishReason?: FinishReason | undefined
  /** Set when a fallback served the call instead of the route's first choice. */
  readonly servedBy?: ServedBy | undefined
  /** An embeddings request's vectors, one per input in order (its text is empty). */
  readonly embeddings?: readonly (readonly number[])[] | undefined
}

/**
 * A planned call to a model, built by the router before any byte reaches the client. Both
 * methods retry transient failures internally, and only before they return or yield a first event.
 * A stream yields its events in batches, one per read of the provider's answer (never an empty
 * one); stopping its iteration early stops the call.
 */
export interface UpstreamCall {
  complete(signal: AbortSignal): Promise<ProviderResult>
  stream(signal: AbortSignal): AsyncIterable<readonly ProviderEvent[]>
}

/**
 * The spec's Completion result, plus what a client dialect renders beyond it (tool calls and the
 * finish reason); the spec's endpoints show only the spec's fields.
 */
export interface CompletionResult {
  text: string
  provider: ServingProvider
  model: ModelName
  cacheHit: boolean
  usage: {
    promptTokens: number
    completionTokens: number
    totalTokens: number
    costCents: number
  }
  toolCalls?: readonly ToolCall[] | undefined
  finishReason?: FinishReason | undefined
  /** Input tokens the provider read from or wrote to its prompt cache, when it reported any. */
  cachedInputTokens?: number | undefined
  cacheWriteTokens?: number | undefined
  /** An embeddings request's vectors, one per input in order. */
  embeddings?: readonly (readonly number[])[] | undefined
}

/** A piece of streamed text on its way to the client; onStreamChunk hooks may replace it. */
export interface StreamChunk {
  readonly text: string
}
