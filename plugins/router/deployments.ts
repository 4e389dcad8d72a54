// Each provider's deployments as the config lists them, or its one apiKey at baseUrl, made into
// the adapter the route table calls: a provider with a key is always served through its deployments.
import type { Clock } from '../../proxy/kit/clock.ts'
import type { ModelCatalog } from '../../proxy/pipeline/catalog.ts'
import { seededRandom } from '../../proxy/kit/seeded-random.ts'
import type { ProviderName } from '../../proxy/pipeline/models.ts'
import type { Upstream } from '../../proxy/pipeline/upstream.ts'
import { createBalancedAdapter, type Deployment } from './balanced-adapter.ts'
import { createCooldowns } from './cooldowns.ts'
import type { DeploymentCounters } from './deployment-metrics.ts'
import type { ProviderAdapter } from './providers/adapter.ts'
import { createAnthropicAdapter } from './providers/anthropic.ts'
import { createChatCompletionsAdapter } from './providers/chat-completions.ts'
import { createEmbeddings } from './providers/embeddings-wire.ts'
import type { DeploymentConfig, RouterConfig } from './schema.ts'

export const PROVIDERS: readonly ProviderName[] = ['openai', 'anthropic', 'mistral']

/** The provider's deployments as configured; its single apiKey is one deployment named after it. */
export function deploymentsOf(config: RouterConfig, provider: ProviderName): readonly DeploymentConfig[] {
  const { baseUrl, apiKey, deployments } = config.providers[provider]
  if (deployments !== undefined) return deployments
  return apiKey === undefined ? [] : [{ name: provider, kind: 'native', baseUrl, apiKey, weight: 1 }]
}

function adapterOf(provider: ProviderName, deployment: DeploymentConfig, providerBaseUrl: string, upstream: Upstream, catalog: ModelCatalog): ProviderAdapter {
  const baseUrl = deployment.baseUrl ?? providerBaseUrl
  const { apiKey } = deployment
  if (provider === 'anthropic') return createAnthropicAdapter(upstream, { baseUrl, apiKey, catalog })
  if (provider === 'mistral') {
    return {
      ...createChatCompletionsAdapter(upstream, { label: 'mistral', baseUrl, apiKey, asksForStreamUsage: false, maxTemperature: 1, catalog }),
      embed: createEmbeddings(upstream, { label: 'mistral', baseUrl, apiKey, catalog }),
    }
  }
  // Azure names its embeddings deployments apart: an Azure deployment serves chat only.
  if (deployment.kind === 'azure') {
    const azure = { apiVersion: deployment.apiVersion!, deployments: deployment.azureDeployments! }
    return createChatCompletionsAdapter(upstream, { label: 'openai', baseUrl, apiKey, asksForStreamUsage: true, maxTemperature: 2, azure, catalog })
  }
  return {
    ...createChatCompletionsAdapter(upstream, { label: 'openai', baseUrl, apiKey, asksForStreamUsage: true, maxTemperature: 2, catalog }),
    embed: createEmbeddings(upstream, { label: 'openai', baseUrl, apiKey, catalog }),
  }
}

function modelsOf(deployment: DeploymentConfig): ReadonlySet<string> | undefined {
  if (deployment.models !== undefined) return new Set(deployment.models)
  return deployment.azureDeployments === undefined ? undefined : new Set(Object.keys(deployment.azureDeployments))
}

/** One adapter per provider that has a key, spreading its calls over its deployments. */
export function deploymentAdapters(
  config: RouterConfig,
  upstream: Upstream,
  clock: Clock,
  counters: DeploymentCounters,
  catalog: ModelCatalog,
): Partial<Record<ProviderName, ProviderAdapter>> {
  const balancing = {
    cooldowns: createCooldowns(clock),
    cooldownMs: config.balancing.cooldownMs,
    random: config.balancing.seed === undefined ? Math.random : seededRandom(config.balancing.seed),
  }
  const adapters: Partial<Record<ProviderName, ProviderAdapter>> = {}
  for (const provider of PROVIDERS) {
    const configured = deploymentsOf(config, provider)
    if (configured.length === 0) continue
    const deployments: Deployment[] = configured.map((deployment) => ({
      name: deployment.name,
      weight: deployment.weight,
      adapter: adapterOf(provider, deployment, config.providers[provider].baseUrl, upstream, catalog),
      models: modelsOf(deployment),
      metrics: counters.of(provider, deployment.name),
    }))
    adapters[provider] = createBalancedAdapter(provider, deployments, balancing)
  }
  return adapters
}
