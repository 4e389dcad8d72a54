// What a model call produces, in the gateway's own terms. Provider adapters translate their wire
// formats into these; the core renders them as the spec's Completion result or as SSE events.
import type { ModelName } from './models.ts'

export type ServingProvider = 'openai' | 'anthropic' | 'mistral' | 'local'

export interface TokenUsage {
  promptTokens: number
  completionTokens: number
}

/** One event of a provider stream: a piece of text, or the provider's usage figures. */
export type ProviderEvent =
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'usage'; readonly usage: TokenUsage }

export interface ProviderResult {
  readonly text: string
  /** Absent when the provider sent none; the core then counts tokens itself. */
  readonly usage?: TokenUsage
}

/**
 * A planned call to a model, built by the router before any byte reaches the client. Both
 * methods retry transient failures internally, and only before they return or yield a first event.
 */
export interface UpstreamCall {
  complete(signal: AbortSignal): Promise<ProviderResult>
  stream(signal: AbortSignal): AsyncIterable<ProviderEvent>
}

/** The spec's Completion result. */
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
}

/** A piece of streamed text on its way to the client; onStreamChunk hooks may replace it. */
export interface StreamChunk {
  readonly text: string
}
