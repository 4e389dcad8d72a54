// The model table's types: which provider serves each model, under which upstream id, its context
// window and longest answer, its list prices and what it can do. The table itself is data
// (models/models.json, read by model-table.ts); the config file's `models` section adds models or
// replaces shipped ones by name, and `tiers` points the quality tiers at any of them. The table is
// built once at boot (see catalog.ts) and read everywhere a model name is checked, listed, routed
// or priced.
import { priceOf, type MeteredTokens } from './price.ts'

export type ProviderName = 'openai' | 'anthropic' | 'mistral'
export type Quality = 'cheap' | 'balanced' | 'frontier'
/** A name in the model table: a shipped one or one the config file added. */
export type ModelName = string

export const QUALITIES: readonly Quality[] = ['cheap', 'balanced', 'frontier']

interface ModelCapabilities {
  /** Takes tool definitions and calls tools. */
  readonly tools: boolean
  /** Takes images in messages. */
  readonly vision: boolean
  /** Serves the json mode (a JSON answer, optionally to a schema). */
  readonly json: boolean
  /**
   * Always reasons before it answers (OpenAI's o-series and gpt-5, Mistral's Magistral): its
   * reasoning is billed as output, and it takes no temperature but the one a client sends.
   */
  readonly reasoning: boolean
}

/** US dollars per million tokens. */
export interface ModelPrices {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
  /** Input tokens the provider read from its prompt cache. */
  readonly cachedInputPerMillion: number
  /** Input tokens the provider wrote to its prompt cache (Anthropic reports them). */
  readonly cacheWritePerMillion: number
}

export interface ModelInfo extends ModelPrices {
  readonly provider: ProviderName
  /** The model id sent to the provider. */
  readonly upstreamId: string
  readonly contextWindow: number
  /** The longest answer it gives: what a request without max_tokens holds budget for. */
  readonly maxOutputTokens: number
  /**
   * False for a name the table does not list that the config lets through to its provider: its
   * cost is not known, so it is charged nothing and recorded as unpriced.
   */
  readonly priced: boolean
  /**
   * The most input tokens one image can cost on this model (its largest image after the
   * provider's own downscaling); null when the model takes no images.
   */
  readonly imageTokens: number | null
  /** An embedding model's vector length; null for a chat model. */
  readonly dimensions: number | null
  readonly capabilities: ModelCapabilities
  /** When the model was released (unix seconds), as /v1/models lists it; 0 when not known. */
  readonly created: number
}

/** Cost in US dollars of a model call, at list price (price.ts). */
export function costDollars(model: ModelPrices, tokens: MeteredTokens): number {
  return priceOf(model, tokens) / 1_000_000
}
