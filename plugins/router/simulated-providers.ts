// Which providers run on the local simulator because they have no API key, said where an operator
// looks: one warning at start, /readyz, and the gauge tollgate_provider_simulated{provider}. The
// gateway works either way, so it stays ready; but a production key's requests are then answered
// by the simulator and charged at list price, which must never go unnoticed.
import { Gauge, type Registry } from 'prom-client'
import type { Logger } from 'pino'
import type { ProviderName } from '../../proxy/pipeline/models.ts'
import { PROVIDERS, deploymentsOf } from './deployments.ts'
import type { RouterConfig } from './schema.ts'

export function simulatedProviders(config: RouterConfig): readonly ProviderName[] {
  return PROVIDERS.filter((provider) => deploymentsOf(config, provider).length === 0)
}

export function reportSimulatedProviders(simulated: readonly ProviderName[], log: Logger, metrics: Registry): void {
  const gauge = new Gauge({
    name: 'tollgate_provider_simulated',
    help: '1 when the provider has no API key and its models are served by the local simulator, else 0.',
    labelNames: ['provider'],
    registers: [metrics],
    // Under --workers every process reports the same configuration: one value, not their sum.
    aggregator: 'max',
  })
  for (const provider of PROVIDERS) gauge.set({ provider }, simulated.includes(provider) ? 1 : 0)
  if (simulated.length === 0) return
  log.warn(
    { simulated },
    `no API key for ${simulated.join(', ')}: their models are served by the local simulator, for production keys too, and charged at list price`,
  )
}
