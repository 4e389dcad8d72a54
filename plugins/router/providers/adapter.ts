// The contract between the router and a provider: one request in the gateway's terms, answered
// whole or as a stream of events. Adapters translate wire formats; they never retry.
import type { Message } from '../../../proxy/ai-request.ts'
import type { ProviderEvent, ProviderResult } from '../../../proxy/completion.ts'
import type { ModelName } from '../../../proxy/models.ts'

export interface ProviderRequest {
  readonly model: ModelName
  readonly messages: readonly Message[]
  readonly temperature: number
  readonly maxTokens: number
  readonly mode: 'text' | 'json'
  /** The gateway's own count of the prompt, for a provider that has none of its own. */
  readonly promptTokens: number
}

/**
 * Both methods throw UpstreamError (retryable for transient failures), UpstreamTimeoutError, or
 * the signal's reason once it aborts; an abort stops the upstream request at once.
 */
export interface ProviderAdapter {
  complete(request: ProviderRequest, signal: AbortSignal): Promise<ProviderResult>
  /** Yields text deltas, then the provider's usage figures when it reports them. */
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<ProviderEvent>
}

/** Sent as a system instruction in json mode; OpenAI also refuses json_object unless the prompt says "JSON". */
export const JSON_MODE_INSTRUCTION = 'Answer with a single valid JSON object and nothing else.'
