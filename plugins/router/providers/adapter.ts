// The contract between the router and a provider: one request in the gateway's terms, answered
// whole or as a stream of events. Adapters translate wire formats; they never retry.
import type { EmbeddingOptions, GenerationOptions, Message } from '../../../proxy/pipeline/ai-request.ts'
import type { ProviderEvent, ProviderResult } from '../../../proxy/pipeline/completion.ts'
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { ModelName } from '../../../proxy/pipeline/models.ts'

/** The request's generation options travel as they are; an adapter sends what its API can express. */
export interface ProviderRequest extends GenerationOptions {
  readonly model: ModelName
  readonly messages: readonly Message[]
  /** Sent when present: the client's, or the route's default for a model that takes one (logic/sampling.ts). */
  readonly temperature?: number | undefined
  /** Sent when present: the client's bound on the answer. */
  readonly maxTokens?: number | undefined
  readonly mode: 'text' | 'json'
  /** The gateway's own count of the prompt, for a provider that has none of its own. */
  readonly promptTokens: number
  /** `traceparent` (and `tracestate`) that continue the request's trace; an HTTP adapter sends them as they are. */
  readonly traceHeaders?: Readonly<Record<string, string>>
}

/** The id the provider knows the model by, which the model table may set apart from its name. */
export function upstreamIdOf(model: ModelName, catalog: ModelCatalog): string {
  return catalog.info(model).upstreamId
}

/**
 * Both methods throw UpstreamError (retryable for transient failures), UpstreamTimeoutError, or
 * the signal's reason once it aborts; an abort stops the upstream request at once.
 */
export interface ProviderAdapter {
  /** Where calls go (a URL, or `built-in`), for the log at start. */
  readonly target: string
  complete(request: ProviderRequest, signal: AbortSignal): Promise<ProviderResult>
  /**
   * Yields text and tool-call deltas, the finish reason, then the provider's usage figures when it
   * reports them: in batches, one per read of the provider's answer. Stopping the iteration early
   * stops the upstream request.
   */
  stream(request: ProviderRequest, signal: AbortSignal): AsyncIterable<readonly ProviderEvent[]>
  /** Vectors for the inputs, with the provider's usage; absent on a provider that has no embeddings API. */
  embed?(request: EmbeddingRequest, signal: AbortSignal): Promise<ProviderResult>
}

export interface EmbeddingRequest extends EmbeddingOptions {
  readonly model: ModelName
  /** The gateway's own count of the inputs, for a provider that has none of its own. */
  readonly promptTokens: number
  readonly user?: string | undefined
  readonly traceHeaders?: Readonly<Record<string, string>>
}

/** Sent as a system instruction in json mode; OpenAI also refuses json_object unless the prompt says "JSON". */
export const JSON_MODE_INSTRUCTION = 'Answer with a single valid JSON object and nothing else.'

/** The json-mode instruction, with the schema the answer must follow when the request gave one. */
export function jsonInstructionOf(request: ProviderRequest): string {
  const schema = request.jsonSchema
  return schema === undefined ? JSON_MODE_INSTRUCTION : `${JSON_MODE_INSTRUCTION} It must follow this JSON Schema: ${JSON.stringify(schema.schema)}`
}
