// The model table: which provider serves each model, under which upstream id, its context window,
// its list prices and what it can do. The spec's eight models are built in; the config file's
// `models` section adds models or replaces built-ins by name, and `tiers` points the quality tiers
// at any of them. The table is built once at boot (see catalog.ts) and read everywhere a model
// name is checked, listed, routed or priced.

export type ProviderName = 'openai' | 'anthropic' | 'mistral'
export type Quality = 'cheap' | 'balanced' | 'frontier'
/** A name in the model table: a built-in one or one the config file added. */
export type ModelName = string

export const QUALITIES: readonly Quality[] = ['cheap', 'balanced', 'frontier']

export interface ModelCapabilities {
  /** Takes tool definitions and calls tools. */
  readonly tools: boolean
  /** Takes images in messages. */
  readonly vision: boolean
  /** Serves the json mode (a JSON answer, optionally to a schema). */
  readonly json: boolean
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
  /**
   * The most input tokens one image can cost on this model (its largest image after the
   * provider's own downscaling); null when the model takes no images.
   */
  readonly imageTokens: number | null
  readonly capabilities: ModelCapabilities
  /** When the model was released (unix seconds), as /v1/models lists it; 0 when not known. */
  readonly created: number
}

/**
 * What a provider's cache costs when a model's entry does not say, as shares of its input price:
 * OpenAI reads cached input at half price (the gpt-4o family's published rate); Anthropic reads it
 * at a tenth and writes it at 1.25 times; Mistral reports no cached tokens, so its share is moot.
 */
export const CACHE_PRICE_SHARES: Readonly<Record<ProviderName, { readonly read: number; readonly write: number }>> = {
  openai: { read: 0.5, write: 1 },
  anthropic: { read: 0.1, write: 1.25 },
  mistral: { read: 1, write: 1 },
}

const ALL = { tools: true, vision: true, json: true } as const
const TEXT = { tools: true, vision: false, json: true } as const

function builtin(
  provider: ProviderName, upstreamId: string, contextWindow: number, inputPerMillion: number, outputPerMillion: number,
  imageTokens: number | null, created: number,
): ModelInfo {
  const shares = CACHE_PRICE_SHARES[provider]
  // gpt-4-turbo has no prompt caching: its cached price is moot, so it is left at the input price.
  const read = upstreamId === 'gpt-4-turbo' ? 1 : shares.read
  return {
    provider, upstreamId, contextWindow, inputPerMillion, outputPerMillion,
    cachedInputPerMillion: inputPerMillion * read, cacheWritePerMillion: inputPerMillion * shares.write,
    imageTokens, capabilities: imageTokens === null ? TEXT : ALL, created,
  }
}

// Image tokens: OpenAI's high detail at most 8 tiles of 170 plus 85 (gpt-4o-mini bills images at
// 2,833 plus 5,667 a tile, so they cost what gpt-4o's do); Claude 3 about 1,600 for its largest
// image (1.15 megapixels at 750 pixels a token). The Mistral models are listed without images.
export const BUILTIN_MODELS: Readonly<Record<string, ModelInfo>> = {
  'gpt-4o': builtin('openai', 'gpt-4o', 128_000, 2.5, 10, 1445, 1_715_558_400),
  'gpt-4o-mini': builtin('openai', 'gpt-4o-mini', 128_000, 0.15, 0.6, 48_169, 1_721_260_800),
  'gpt-4-turbo': builtin('openai', 'gpt-4-turbo', 128_000, 10, 30, 1445, 1_712_620_800),
  'claude-3-opus-20240229': builtin('anthropic', 'claude-3-opus-20240229', 200_000, 15, 75, 1600, 1_709_164_800),
  'claude-3-sonnet-20240229': builtin('anthropic', 'claude-3-sonnet-20240229', 200_000, 3, 15, 1600, 1_709_164_800),
  'claude-3-haiku-20240307': builtin('anthropic', 'claude-3-haiku-20240307', 200_000, 0.25, 1.25, 1600, 1_709_769_600),
  'mistral-large-latest': builtin('mistral', 'mistral-large-latest', 128_000, 2, 6, null, 1_731_888_000),
  'mistral-medium-latest': builtin('mistral', 'mistral-medium-latest', 128_000, 0.4, 2, null, 1_746_576_000),
}

/**
 * Tokens as the gateway meters them. `promptTokens` is every input token; the cached ones are a
 * part of it, priced at their own rates.
 */
export interface MeteredTokens {
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of promptTokens, read from the provider's prompt cache. */
  readonly cachedInputTokens?: number | undefined
  /** Of promptTokens, written to the provider's prompt cache. */
  readonly cacheWriteTokens?: number | undefined
}

/** Cost in US dollars of a model call, at list price. */
export function costDollars(model: ModelPrices, tokens: MeteredTokens): number {
  const cached = tokens.cachedInputTokens ?? 0
  const written = tokens.cacheWriteTokens ?? 0
  const fresh = Math.max(0, tokens.promptTokens - cached - written)
  return (
    fresh * model.inputPerMillion + cached * model.cachedInputPerMillion + written * model.cacheWritePerMillion +
    tokens.completionTokens * model.outputPerMillion
  ) / 1_000_000
}
