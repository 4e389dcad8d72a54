// Per deployment, what it was asked, how often it failed and how often it was rested. The label is
// the deployment's configured name, never its URL or key, so the label sets stay few and safe.
import { Counter, type Registry } from 'prom-client'

export interface DeploymentMetrics {
  readonly requests: Counter.Internal
  readonly errors: Counter.Internal
  readonly cooldowns: Counter.Internal
}

export interface DeploymentCounters {
  /** Each deployment's counters, bound once so that a request only increments. */
  of(provider: string, deployment: string): DeploymentMetrics
}

export function deploymentCounters(metrics: Registry): DeploymentCounters {
  const labelNames = ['provider', 'deployment'] as const
  const requests = new Counter({
    name: 'tollgate_deployment_requests_total',
    help: 'Calls sent to each provider deployment, retries included.',
    labelNames,
    registers: [metrics],
  })
  const errors = new Counter({
    name: 'tollgate_deployment_errors_total',
    help: 'Calls to each provider deployment that failed before an answer began.',
    labelNames,
    registers: [metrics],
  })
  const cooldowns = new Counter({
    name: 'tollgate_deployment_cooldowns_total',
    help: 'Times each provider deployment was rested after a failure or a 429.',
    labelNames,
    registers: [metrics],
  })
  return {
    of(provider, deployment) {
      const labels = { provider, deployment }
      return { requests: requests.labels(labels), errors: errors.labels(labels), cooldowns: cooldowns.labels(labels) }
    },
  }
}
