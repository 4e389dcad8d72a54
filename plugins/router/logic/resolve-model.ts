// Which model serves a request and which provider serves that model. Pure: no context, no I/O;
// the model table in force is passed in.
import type { ServingProvider } from '../../../proxy/pipeline/completion.ts'
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { ModelName, ProviderName, Quality } from '../../../proxy/pipeline/models.ts'

export interface Target {
  readonly provider: ServingProvider
  readonly model: ModelName
}

export interface ModelChoice {
  readonly model?: ModelName | undefined
  readonly quality: Quality
}

export interface RoutingRules {
  /** Providers that have an API key configured. */
  readonly configured: ReadonlySet<ProviderName>
  /** The model each tier routes to. */
  readonly tiers: Readonly<Record<Quality, ModelName>>
  readonly fallback: Readonly<Partial<Record<Quality, ModelName | undefined>>>
  /** Per model, the models tried in order once it fails (fallbacks.ts says which refusals count). */
  readonly fallbacks: Readonly<Record<ModelName, readonly ModelName[]>>
}

/**
 * A model's own provider when that provider has a key and the request is not in test mode;
 * otherwise the built-in local provider, reported honestly as such.
 */
export function servingProvider(model: ModelName, isTestMode: boolean, configured: ReadonlySet<ProviderName>, catalog: ModelCatalog): ServingProvider {
  const provider = catalog.info(model).provider
  return !isTestMode && configured.has(provider) ? provider : 'local'
}

/**
 * The targets to try in order: the explicit model or the tier's model, then the fallbacks the
 * config lists for that model, then the tier's fallback when the request named a tier; each under
 * the table's name, each once.
 */
export function resolveTargets(choice: ModelChoice, isTestMode: boolean, rules: RoutingRules, catalog: ModelCatalog): readonly [Target, ...Target[]] {
  // An alias is served, metered and reported as the model it stands for.
  const model = catalog.canonical(choice.model ?? rules.tiers[choice.quality])
  const tierFallback = choice.model === undefined ? rules.fallback[choice.quality] : undefined
  const modelFallbacks = rules.fallbacks[model] ?? rules.fallbacks[choice.model ?? model] ?? []
  const targets: [Target, ...Target[]] = [{ provider: servingProvider(model, isTestMode, rules.configured, catalog), model }]
  for (const name of tierFallback === undefined ? modelFallbacks : [...modelFallbacks, tierFallback]) {
    const fallbackModel = catalog.canonical(name)
    const fallback: Target = { provider: servingProvider(fallbackModel, isTestMode, rules.configured, catalog), model: fallbackModel }
    if (!targets.some((target) => target.provider === fallback.provider && target.model === fallback.model)) targets.push(fallback)
  }
  return targets
}
