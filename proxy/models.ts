// The spec's model catalog: which provider serves each model, its context window and its list
// price. Pricing here is the default; config may override it (see config.ts).

export type ProviderName = 'openai' | 'anthropic' | 'mistral'
export type Quality = 'cheap' | 'balanced' | 'frontier'

export interface ModelInfo {
  readonly provider: ProviderName
  readonly contextWindow: number
  /** US dollars per million input tokens. */
  readonly inputPerMillion: number
  /** US dollars per million output tokens. */
  readonly outputPerMillion: number
  /**
   * The most input tokens one image can cost on this model (its largest image after the
   * provider's own downscaling); null when the model takes no images.
   */
  readonly imageTokens: number | null
}

// Image tokens: OpenAI's high detail at most 8 tiles of 170 plus 85 (gpt-4o-mini bills images at
// 2,833 plus 5,667 a tile, so they cost what gpt-4o's do); Claude 3 about 1,600 for its largest
// image (1.15 megapixels at 750 pixels a token). The Mistral models are listed without images.
export const MODELS = {
  'gpt-4o': { provider: 'openai', contextWindow: 128_000, inputPerMillion: 2.5, outputPerMillion: 10, imageTokens: 1445 },
  'gpt-4o-mini': { provider: 'openai', contextWindow: 128_000, inputPerMillion: 0.15, outputPerMillion: 0.6, imageTokens: 48_169 },
  'gpt-4-turbo': { provider: 'openai', contextWindow: 128_000, inputPerMillion: 10, outputPerMillion: 30, imageTokens: 1445 },
  'claude-3-opus-20240229': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 15, outputPerMillion: 75, imageTokens: 1600 },
  'claude-3-sonnet-20240229': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 3, outputPerMillion: 15, imageTokens: 1600 },
  'claude-3-haiku-20240307': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 0.25, outputPerMillion: 1.25, imageTokens: 1600 },
  'mistral-large-latest': { provider: 'mistral', contextWindow: 128_000, inputPerMillion: 2, outputPerMillion: 6, imageTokens: null },
  'mistral-medium-latest': { provider: 'mistral', contextWindow: 128_000, inputPerMillion: 0.4, outputPerMillion: 2, imageTokens: null },
} as const satisfies Record<string, ModelInfo>

export type ModelName = keyof typeof MODELS
export const MODEL_NAMES = Object.keys(MODELS) as [ModelName, ...ModelName[]]

/** The spec's quality tiers. */
export const TIER_MODELS: Readonly<Record<Quality, ModelName>> = {
  cheap: 'claude-3-haiku-20240307',
  balanced: 'gpt-4o-mini',
  frontier: 'gpt-4o',
}

export type Pricing = Readonly<Record<ModelName, { inputPerMillion: number; outputPerMillion: number }>>

export const DEFAULT_PRICING: Pricing = MODELS

/** Cost in US dollars of a call, at list price. */
export function costDollars(pricing: Pricing, model: ModelName, promptTokens: number, completionTokens: number): number {
  const price = pricing[model]
  return (promptTokens * price.inputPerMillion + completionTokens * price.outputPerMillion) / 1_000_000
}
