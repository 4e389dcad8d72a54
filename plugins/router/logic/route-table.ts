// The candidates for every possible choice of model or tier, with and without test mode, built
// once at setup so that routing a request costs two lookups and no allocation. An alias shares its
// model's plan; a name let through unpriced, which the table does not list, is planned per request.
import type { ServingProvider } from '../../../proxy/pipeline/completion.ts'
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { QUALITIES, type ModelName, type ProviderName, type Quality } from '../../../proxy/pipeline/models.ts'
import type { Candidate } from '../call-with-retry.ts'
import type { ProviderAdapter } from '../providers/adapter.ts'
import { resolveTargets, type ModelChoice, type RoutingRules, type Target } from './resolve-model.ts'

export interface RoutePlan {
  /** The chosen model, tried first. */
  readonly primary: Candidate
  /** The primary, then its fallbacks. */
  readonly candidates: readonly Candidate[]
  /** The smallest window among the candidates, so the same trimmed prompt fits each of them. */
  readonly contextWindow: number
  /** The longest answer any candidate gives: what a budget hold reserves when the client sets no maximum. */
  readonly maxOutputTokens: number
}

export interface RouteTable {
  planFor(choice: ModelChoice, isTestMode: boolean): RoutePlan
}

/** `local` always; a real provider only when it has an API key. */
export type Adapters = { readonly local: ProviderAdapter } & Readonly<Partial<Record<ProviderName, ProviderAdapter>>>

interface Plans {
  readonly byModel: ReadonlyMap<ModelName, RoutePlan>
  readonly byTier: Readonly<Record<Quality, RoutePlan>>
}

/** The router's choices per tier (where each routes, and its fallback) and each model's fallbacks. */
type TierRouting = Pick<RoutingRules, 'tiers' | 'fallback' | 'fallbacks'>

export function buildRouteTable(adapters: Adapters, routing: TierRouting, catalog: ModelCatalog): RouteTable {
  const configured = new Set<ProviderName>()
  for (const provider of ['openai', 'anthropic', 'mistral'] as const) {
    if (adapters[provider] !== undefined) configured.add(provider)
  }
  const rules: RoutingRules = { tiers: routing.tiers, fallback: routing.fallback, fallbacks: routing.fallbacks, configured }

  const adapterOf = (provider: ServingProvider): ProviderAdapter => {
    const adapter = adapters[provider]
    if (adapter === undefined) throw new Error(`no adapter for provider ${provider}`)
    return adapter
  }
  const planOf = ([first, ...rest]: readonly [Target, ...Target[]]): RoutePlan => {
    const candidateOf = (target: Target): Candidate => ({ ...target, info: catalog.info(target.model), adapter: adapterOf(target.provider) })
    const primary = candidateOf(first)
    const candidates = [primary, ...rest.map(candidateOf)]
    return {
      primary,
      candidates,
      contextWindow: Math.min(...candidates.map(({ info }) => info.contextWindow)),
      maxOutputTokens: Math.max(...candidates.map(({ info }) => info.maxOutputTokens)),
    }
  }
  const modelPlan = (model: ModelName, isTestMode: boolean) => planOf(resolveTargets({ model, quality: 'balanced' }, isTestMode, rules, catalog))
  const plansFor = (isTestMode: boolean): Plans => {
    const byModel = new Map<ModelName, RoutePlan>()
    for (const model of catalog.names) byModel.set(model, modelPlan(model, isTestMode))
    for (const [alias, model] of catalog.aliases) byModel.set(alias, byModel.get(model)!)
    const byTier = {} as Record<Quality, RoutePlan>
    for (const quality of QUALITIES) byTier[quality] = planOf(resolveTargets({ quality }, isTestMode, rules, catalog))
    return { byModel, byTier }
  }

  const live = plansFor(false)
  const test = plansFor(true)
  return {
    planFor(choice, isTestMode) {
      const plans = isTestMode ? test : live
      if (choice.model === undefined) return plans.byTier[choice.quality]
      return plans.byModel.get(choice.model) ?? plans.byModel.get(catalog.canonical(choice.model)) ?? modelPlan(choice.model, isTestMode)
    },
  }
}
