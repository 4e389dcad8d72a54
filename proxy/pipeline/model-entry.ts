// One model as the table describes it, in the shipped file (models/models.json) and in the config
// file's `models` section alike, and how such an entry becomes the ModelInfo every part reads.
import { z } from 'zod'
import type { ModelInfo, ModelPrices, ProviderName } from './models.ts'
import { oneOf } from '../http/validate.ts'

const price = z.number().nonnegative().max(1_000_000)

/**
 * What a provider's cache costs when an entry does not say, as shares of its input price: OpenAI
 * reads cached input at half price (the gpt-4o family's rate); Anthropic reads it at a tenth and
 * writes it at 1.25 times; Mistral reports no cached tokens, so its share is moot.
 */
const CACHE_PRICE_SHARES: Readonly<Record<ProviderName, { readonly read: number; readonly write: number }>> = {
  openai: { read: 0.5, write: 1 },
  anthropic: { read: 0.1, write: 1.25 },
  mistral: { read: 1, write: 1 },
}

/** With vision and no `imageTokens`: Claude 3's largest image. */
export const DEFAULT_IMAGE_TOKENS = 1600
/**
 * The answer's bound for a model whose entry gives no `maxOutputTokens`: the most a request that
 * sets no max_tokens holds, and what Anthropic, which needs one, is sent then.
 */
export const DEFAULT_OUTPUT_TOKENS = 4096

export const modelEntrySchema = z.strictObject({
  provider: oneOf('provider', ['openai', 'anthropic', 'mistral']),
  /** The id sent to the provider; the entry's name when absent. */
  upstreamId: z.string().min(1).optional(),
  contextWindow: z.int().positive(),
  /** The longest answer the model gives; absent: a replaced built-in's, else DEFAULT_OUTPUT_TOKENS. */
  maxOutputTokens: z.int().positive().optional(),
  inputPerMillion: price,
  outputPerMillion: price,
  /** Cached input read; absent: the provider's share of the input price (CACHE_PRICE_SHARES). */
  cachedInputPerMillion: price.optional(),
  /** Cached input written (Anthropic); absent: 1.25 times the input price on Anthropic. */
  cacheWritePerMillion: price.optional(),
  capabilities: z
    .strictObject({
      tools: z.boolean().default(true),
      vision: z.boolean().default(false),
      json: z.boolean().default(true),
      /** Reasons before it answers, and is sent no temperature the client did not send. */
      reasoning: z.boolean().default(false),
    })
    .prefault({}),
  /**
   * An embedding model's vector length. Present only on embedding models, which serve
   * /v1/embeddings (a context window of one input each) and no chat.
   */
  dimensions: z.int().positive().max(65_536).optional(),
  /** With vision: the most tokens one image costs; absent: DEFAULT_IMAGE_TOKENS. */
  imageTokens: z.int().positive().optional(),
  /** Release day (YYYY-MM-DD), /v1/models's `created`. */
  released: z.iso.date({ error: 'released must be a date, YYYY-MM-DD' }).optional(),
})

export type ModelEntry = z.output<typeof modelEntrySchema>

export const priceOverrideSchema = z.strictObject({
  inputPerMillion: price,
  outputPerMillion: price,
  cachedInputPerMillion: price.optional(),
  cacheWritePerMillion: price.optional(),
})

export type PriceOverride = z.output<typeof priceOverrideSchema>

/** The entry's prices, the cached ones defaulted to the provider's shares. */
export function pricesOf(provider: ProviderName, given: PriceOverride): ModelPrices {
  const shares = CACHE_PRICE_SHARES[provider]
  return {
    inputPerMillion: given.inputPerMillion,
    outputPerMillion: given.outputPerMillion,
    cachedInputPerMillion: given.cachedInputPerMillion ?? given.inputPerMillion * shares.read,
    cacheWritePerMillion: given.cacheWritePerMillion ?? given.inputPerMillion * shares.write,
  }
}

/** `replaced`: the model of the same name the entry replaces, whose facts it does not restate. */
export function infoOf(name: string, entry: ModelEntry, replaced?: ModelInfo): ModelInfo {
  return {
    provider: entry.provider,
    upstreamId: entry.upstreamId ?? name,
    contextWindow: entry.contextWindow,
    maxOutputTokens: entry.maxOutputTokens ?? replaced?.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS,
    ...pricesOf(entry.provider, entry),
    priced: true,
    imageTokens: entry.capabilities.vision ? (entry.imageTokens ?? DEFAULT_IMAGE_TOKENS) : null,
    dimensions: entry.dimensions ?? null,
    capabilities: entry.capabilities,
    created: entry.released === undefined ? (replaced?.created ?? 0) : Date.parse(entry.released) / 1000,
  }
}
