// Per deployment, what it was asked, how often it failed and how often it was rested. The label is
// the deployment's configured name, never its URL or key, so the label sets stay few and safe.
import type { Registry } from 'prom-client'
import { boundCounter, type BoundCount } from '../../proxy/metrics.ts'

export interface DeploymentMetrics {
  readonly requests: BoundCount
  readonly errors: BoundCount
  readonly cooldowns: BoundCount
}

export interface DeploymentCounters {
  /** Each deployment's counters, bound once so that a request only increments. */
  of(provider: string, deployment: string): DeploymentMetrics
}

export function deploymentCounters(metrics: Registry): DeploymentCounters {
  const labelNames = ['provider', 'deployment'] as const
  // Bound counters: a prom-client child still builds its label set's key on every increment.
  const requests = boundCounter({
    name: 'tollgate_deployment_requests_total',
    help: 'Calls sent to each provider deployment, retries included.',
    labelNames,
    registers: [metrics],
  })
  const errors = boundCounter({
    name: 'tollgate_deployment_errors_total',
    help: 'Calls to each provider deployment that failed before an answer began.',
    labelNames,
    registers: [metrics],
  })
  const cooldowns = boundCounter({
    name: 'tollgate_deployment_cooldowns_total',
    help: 'Times each provider deployment was rested after a failure or a 429.',
    labelNames,
    registers: [metrics],
  })
  return {
    of(provider, deployment) {
      const labels = { provider, deployment }
      return { requests: requests.bind(labels), errors: errors.bind(labels), cooldowns: cooldowns.bind(labels) }
    },
  }
}
