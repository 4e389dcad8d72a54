// The model table in force: the built-ins, then the config file's `models` (a model may reuse a
// built-in's name to replace it) and its `pricing` overrides. Where each quality tier routes is
// the router's configuration, not the table's. Built once at boot, while
// the configuration is read, and read everywhere a model name is checked, listed, routed or priced.
import { z } from 'zod'
import {
  BUILTIN_MODELS, CACHE_PRICE_SHARES, QUALITIES,
  type ModelInfo, type ModelName, type ModelPrices, type ProviderName,
} from './models.ts'

export interface ModelCatalog {
  /** Every model a request may name, built-ins first. */
  readonly names: readonly ModelName[]
  has(name: string): boolean
  /** The model's entry; throws for a name not in the table (validation keeps those out). */
  info(name: ModelName): ModelInfo
}

const price = z.number().nonnegative().max(1_000_000)

/** A model the operator adds in the config file's `models` section, under its name. */
export const modelEntrySchema = z.strictObject({
  provider: z.enum(['openai', 'anthropic', 'mistral'], { error: 'provider must be one of openai, anthropic, mistral' }),
  /** The id sent to the provider; the entry's name when absent. */
  upstreamId: z.string().min(1).optional(),
  contextWindow: z.int().positive(),
  inputPerMillion: price,
  outputPerMillion: price,
  /** Cached input read; absent: the provider's share of the input price (CACHE_PRICE_SHARES). */
  cachedInputPerMillion: price.optional(),
  /** Cached input written (Anthropic); absent: 1.25 times the input price on Anthropic. */
  cacheWritePerMillion: price.optional(),
  capabilities: z.strictObject({
    tools: z.boolean().default(true),
    vision: z.boolean().default(false),
    json: z.boolean().default(true),
  }).prefault({}),
  /** With vision: the most tokens one image costs; absent: 1,600 (Claude 3's largest image). */
  imageTokens: z.int().positive().optional(),
})

export type ModelEntry = z.output<typeof modelEntrySchema>

export const priceOverrideSchema = z.strictObject({
  inputPerMillion: price,
  outputPerMillion: price,
  cachedInputPerMillion: price.optional(),
  cacheWritePerMillion: price.optional(),
})

const DEFAULT_IMAGE_TOKENS = 1600

function infoOf(name: string, entry: ModelEntry): ModelInfo {
  return {
    provider: entry.provider,
    upstreamId: entry.upstreamId ?? name,
    contextWindow: entry.contextWindow,
    ...pricesOf(entry.provider, entry),
    imageTokens: entry.capabilities.vision ? entry.imageTokens ?? DEFAULT_IMAGE_TOKENS : null,
    capabilities: entry.capabilities,
    created: BUILTIN_MODELS[name]?.created ?? 0,
  }
}

function pricesOf(provider: ProviderName, given: z.output<typeof priceOverrideSchema>): ModelPrices {
  const shares = CACHE_PRICE_SHARES[provider]
  return {
    inputPerMillion: given.inputPerMillion,
    outputPerMillion: given.outputPerMillion,
    cachedInputPerMillion: given.cachedInputPerMillion ?? given.inputPerMillion * shares.read,
    cacheWritePerMillion: given.cacheWritePerMillion ?? given.inputPerMillion * shares.write,
  }
}

export interface CatalogConfig {
  readonly models: Readonly<Record<string, ModelEntry>>
  readonly pricing: Readonly<Record<string, z.output<typeof priceOverrideSchema>>>
}

/** What is wrong with the config's models, under the config path that says it. */
export interface CatalogProblem {
  readonly path: string
  readonly message: string
}

/** The table for a parsed config, or its first problem. */
export function buildCatalog(config: CatalogConfig): ModelCatalog | CatalogProblem {
  const table = new Map<ModelName, ModelInfo>(Object.entries(BUILTIN_MODELS))
  for (const [name, entry] of Object.entries(config.models)) {
    if ((QUALITIES as readonly string[]).includes(name)) return { path: `models.${name}`, message: 'a model may not take a tier\'s name' }
    table.set(name, infoOf(name, entry))
  }
  for (const [name, prices] of Object.entries(config.pricing)) {
    const info = table.get(name)
    if (info === undefined) return { path: `pricing.${name}`, message: `no such model (known: ${[...table.keys()].join(', ')})` }
    table.set(name, { ...info, ...pricesOf(info.provider, prices) })
  }
  return catalogOf(table)
}

function catalogOf(table: ReadonlyMap<ModelName, ModelInfo>): ModelCatalog {
  return {
    names: [...table.keys()],
    has: (name) => table.has(name),
    info(name) {
      const info = table.get(name)
      if (info === undefined) throw new Error(`model ${name} is not in the model table`)
      return info
    },
  }
}

let current = catalogOf(new Map(Object.entries(BUILTIN_MODELS)))

/** The table in force: the built-ins until the configuration has been read. */
export function modelCatalog(): ModelCatalog {
  return current
}

/** Puts a table in force; called once per process while the configuration is read. */
export function useCatalog(catalog: ModelCatalog): void {
  current = catalog
}

/** A model name of the table in force, or with `orTier` a tier name too, as request bodies take it. */
export function modelNameSchema(orTier: boolean) {
  const isTier = (name: string) => orTier && (QUALITIES as readonly string[]).includes(name)
  const message = () => `model must be one of ${(orTier ? [...current.names, ...QUALITIES] : current.names).join(', ')}`
  return z.string({ error: message }).refine((name) => current.has(name) || isTier(name), { error: message })
}
