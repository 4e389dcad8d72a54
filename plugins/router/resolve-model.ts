// Which model serves a request and which provider serves that model. Pure: no context, no I/O.
import type { ServingProvider } from '../../proxy/completion.ts'
import { modelCatalog } from '../../proxy/catalog.ts'
import type { ModelName, ProviderName, Quality } from '../../proxy/models.ts'

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
}

/**
 * A model's own provider when that provider has a key and the request is not in test mode;
 * otherwise the built-in local provider, reported honestly as such.
 */
export function servingProvider(model: ModelName, isTestMode: boolean, configured: ReadonlySet<ProviderName>): ServingProvider {
  const provider = modelCatalog().info(model).provider
  return !isTestMode && configured.has(provider) ? provider : 'local'
}

/**
 * The targets to try in order: the explicit model or the tier's model, then the tier's fallback,
 * each under the table's name. An explicit model gets no fallback: the client asked for that
 * model and no other.
 */
export function resolveTargets(choice: ModelChoice, isTestMode: boolean, rules: RoutingRules): readonly [Target, ...Target[]] {
  const catalog = modelCatalog()
  // An alias is served, metered and reported as the model it stands for.
  const model = catalog.canonical(choice.model ?? rules.tiers[choice.quality])
  const primary: Target = { provider: servingProvider(model, isTestMode, rules.configured), model }
  const tierFallback = choice.model === undefined ? rules.fallback[choice.quality] : undefined
  const fallbackModel = tierFallback === undefined ? undefined : catalog.canonical(tierFallback)
  if (fallbackModel === undefined) return [primary]
  const fallback: Target = { provider: servingProvider(fallbackModel, isTestMode, rules.configured), model: fallbackModel }
  const isSameTarget = fallback.provider === primary.provider && fallback.model === primary.model
  return isSameTarget ? [primary] : [primary, fallback]
}
