// The model table in force: the shipped table (models/models.json), then the config file's
// `models` (a model may reuse a shipped name to replace it), its `pricing` overrides, its
// `aliases`, and the names its `unpricedModels` patterns let through to a provider unpriced. Where
// each quality tier routes is the router's configuration, not the table's. Built once at boot,
// while the configuration is read, and read everywhere a model name is checked, listed, routed or
// priced.
import { z } from 'zod'
import { DEFAULT_IMAGE_TOKENS, DEFAULT_OUTPUT_TOKENS, infoOf, pricesOf, type ModelEntry, type PriceOverride } from './model-entry.ts'
import { SHIPPED_TABLE } from './model-table.ts'
import { QUALITIES, type ModelInfo, type ModelName, type ProviderName } from './models.ts'
import { unpricedMatcher, type UnpricedMatcher, type UnpricedModelsConfig } from './unpriced-models.ts'

export { modelEntrySchema, priceOverrideSchema } from './model-entry.ts'
export { unpricedModelsSchema } from './unpriced-models.ts'

export interface ModelCatalog {
  /** The table's models, shipped ones first. */
  readonly names: readonly ModelName[]
  /** Other names of the table's models, each with the model it stands for. */
  readonly aliases: ReadonlyMap<string, ModelName>
  /** The patterns that let unlisted names through, per provider; empty when there are none. */
  readonly unpricedPatterns: string
  /** A name a request may give: a model of the table, an alias, or a name let through unpriced. */
  has(name: string): boolean
  /**
   * The table's name for what a request named: an alias's model, `openai/gpt-4o`'s `gpt-4o`; a
   * name let through unpriced stays as it was given.
   */
  canonical(name: string): ModelName
  /** The model's entry, for any name `has` accepts; throws for another (validation keeps those out). */
  info(name: ModelName): ModelInfo
  /** The model as a metric label: the table's name, or `unpriced` for the names let through, which clients choose. */
  metricName(name: ModelName): string
}

/** What a name let through unpriced is assumed to be: anything the provider refuses, it refuses itself. */
const UNPRICED_CAPABILITIES = { tools: true, vision: true, json: true, reasoning: false } as const
/** Names let through are kept known this many at a time, so that the names clients send cannot grow it. */
const UNPRICED_KEPT = 1024
const UNPRICED_METRIC_NAME = 'unpriced'

export interface CatalogConfig {
  readonly models: Readonly<Record<string, ModelEntry>>
  readonly pricing: Readonly<Record<string, PriceOverride>>
  readonly aliases: Readonly<Record<string, string>>
  readonly unpricedModels: UnpricedModelsConfig
}

/** What is wrong with the config's models, under the config path that says it. */
interface CatalogProblem {
  readonly path: string
  readonly message: string
}

const isTier = (name: string) => (QUALITIES as readonly string[]).includes(name)

/** The table for a parsed config, or its first problem. */
export function buildCatalog(config: CatalogConfig): ModelCatalog | CatalogProblem {
  const table = new Map<ModelName, ModelInfo>(Object.entries(SHIPPED_TABLE.models))
  for (const [name, entry] of Object.entries(config.models)) {
    if (isTier(name)) return { path: `models.${name}`, message: "a model may not take a tier's name" }
    table.set(name, infoOf(name, entry, table.get(name)))
  }
  const known = () => [...table.keys()].join(', ')
  for (const [name, prices] of Object.entries(config.pricing)) {
    const info = table.get(name)
    if (info === undefined) return { path: `pricing.${name}`, message: `no such model (known: ${known()})` }
    table.set(name, { ...info, ...pricesOf(info.provider, prices) })
  }
  const aliases = new Map<string, ModelName>(Object.entries(SHIPPED_TABLE.aliases))
  for (const [alias, target] of Object.entries(config.aliases)) {
    if (isTier(alias)) return { path: `aliases.${alias}`, message: "an alias may not take a tier's name" }
    if (table.has(alias)) return { path: `aliases.${alias}`, message: "an alias may not take a model's name; give the model its own entry in models instead" }
    if (!table.has(target)) return { path: `aliases.${alias}`, message: `no such model ${target} (known: ${known()})` }
    aliases.set(alias, target)
  }
  // A configured model may take a shipped alias's name: the model wins.
  for (const alias of aliases.keys()) if (table.has(alias)) aliases.delete(alias)
  return catalogOf(table, aliases, unpricedMatcher(config.unpricedModels))
}

function unpricedInfo(provider: ProviderName, upstreamId: string): ModelInfo {
  return {
    provider,
    upstreamId,
    // Not known: the gateway neither trims the prompt nor refuses it for its size; the provider does.
    contextWindow: Number.MAX_SAFE_INTEGER,
    maxOutputTokens: DEFAULT_OUTPUT_TOKENS,
    inputPerMillion: 0,
    outputPerMillion: 0,
    cachedInputPerMillion: 0,
    cacheWritePerMillion: 0,
    priced: false,
    imageTokens: DEFAULT_IMAGE_TOKENS,
    dimensions: null,
    capabilities: UNPRICED_CAPABILITIES,
    created: 0,
  }
}

function catalogOf(table: ReadonlyMap<ModelName, ModelInfo>, aliases: ReadonlyMap<string, ModelName>, unpriced: UnpricedMatcher): ModelCatalog {
  const letThrough = new Map<string, ModelInfo>()

  /** The table's name for a name that stands for a model of the table, else undefined. */
  const tableName = (name: string): ModelName | undefined => {
    if (table.has(name)) return name
    const target = aliases.get(name)
    if (target !== undefined) return target
    const slash = name.indexOf('/')
    if (slash <= 0) return undefined
    const rest = name.slice(slash + 1)
    const model = table.has(rest) ? rest : aliases.get(rest)
    return model !== undefined && table.get(model)!.provider === name.slice(0, slash) ? model : undefined
  }

  const unpricedOf = (name: string): ModelInfo | undefined => {
    const kept = letThrough.get(name)
    if (kept !== undefined) return kept
    const matched = unpriced.match(name)
    if (matched === undefined) return undefined
    if (letThrough.size >= UNPRICED_KEPT) letThrough.clear()
    const info = unpricedInfo(matched.provider, matched.upstreamId)
    letThrough.set(name, info)
    return info
  }

  return {
    names: [...table.keys()],
    aliases,
    unpricedPatterns: unpriced.described,
    has: (name) => tableName(name) !== undefined || unpricedOf(name) !== undefined,
    canonical: (name) => tableName(name) ?? name,
    info(name) {
      const model = tableName(name)
      const info = model === undefined ? unpricedOf(name) : table.get(model)
      if (info === undefined) throw new Error(`model ${name} is not in the model table`)
      return info
    },
    metricName: (name) => tableName(name) ?? UNPRICED_METRIC_NAME,
  }
}

let current = catalogOf(
  new Map(Object.entries(SHIPPED_TABLE.models)),
  new Map(Object.entries(SHIPPED_TABLE.aliases)),
  unpricedMatcher({ openai: [], anthropic: [], mistral: [] }),
)

/** The table in force: the shipped one until the configuration has been read. */
export function modelCatalog(): ModelCatalog {
  return current
}

/** Puts a table in force; called once per process while the configuration is read. */
export function useCatalog(catalog: ModelCatalog): void {
  current = catalog
}

/** A model name of the table in force, or with `orTier` a tier name too, as request bodies take it. */
export function modelNameSchema(orTier: boolean) {
  const accepts = (name: string) => current.has(name) || (orTier && isTier(name))
  const message = () => {
    const known = (orTier ? [...current.names, ...QUALITIES] : current.names).join(', ')
    const through = current.unpricedPatterns === '' ? '' : `, or a name these patterns let through unpriced: ${current.unpricedPatterns}`
    return `model must be one of ${known} (GET /v1/models lists them with their aliases)${through}`
  }
  return z.string({ error: message }).refine(accepts, { error: message })
}
