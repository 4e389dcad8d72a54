// The Prometheus registry and the core's own request metrics. Label sets are bounded: route
// names and status classes only, never a key, user or project id.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

export interface CoreMetrics {
  readonly registry: Registry
  readonly requests: Counter<'route' | 'status_class' | 'reason'>
  readonly duration: Histogram<'route' | 'status_class'>
  readonly inFlight: Gauge<'route'>
  readonly pluginFailures: Counter<'plugin'>
  readonly shortCircuits: Counter<'plugin' | 'reason'>
  readonly upstreamDuration: Histogram<'provider' | 'model' | 'outcome'>
  readonly upstreamFirstByte: Histogram<'provider' | 'model'>
}

const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

export function createMetrics(): CoreMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  // A few default gauges end in _total, which Prometheus reserves for counters (promtool rejects them).
  for (const metric of registry.getMetricsAsArray()) {
    if (metric.name.endsWith('_total') && !(metric instanceof Counter)) registry.removeSingleMetric(metric.name)
  }
  return {
    registry,
    requests: new Counter({
      name: 'tollgate_requests_total',
      help: 'Requests answered, by route, status class and outcome.',
      labelNames: ['route', 'status_class', 'reason'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'tollgate_request_duration_seconds',
      help: 'Time from accepting a request to its last byte.',
      labelNames: ['route', 'status_class'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'tollgate_requests_in_flight',
      help: 'Requests accepted and not yet answered.',
      labelNames: ['route'],
      registers: [registry],
    }),
    pluginFailures: new Counter({
      name: 'tollgate_plugin_failures_total',
      help: 'Plugin hooks that threw; fail-open plugins let the request through.',
      labelNames: ['plugin'],
      registers: [registry],
    }),
    shortCircuits: new Counter({
      name: 'tollgate_short_circuits_total',
      help: 'Requests answered by a plugin before the model call.',
      labelNames: ['plugin', 'reason'],
      registers: [registry],
    }),
    upstreamDuration: new Histogram({
      name: 'tollgate_upstream_duration_seconds',
      help: 'Model calls from the first attempt to the last byte, retries included.',
      labelNames: ['provider', 'model', 'outcome'],
      buckets: UPSTREAM_BUCKETS,
      registers: [registry],
    }),
    upstreamFirstByte: new Histogram({
      name: 'tollgate_upstream_first_byte_seconds',
      help: 'Model calls from the first attempt to the first text (the whole answer for non-streamed calls).',
      labelNames: ['provider', 'model'],
      buckets: UPSTREAM_BUCKETS,
      registers: [registry],
    }),
  }
}

export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`
}
