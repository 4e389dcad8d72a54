// The Prometheus registry and the core's own request metrics. Label sets are bounded: route
// names and status classes only, never a key, user or project id.
//
// Counters on the request path are bound: each label set's increments add up in a number of its
// own, handed to prom-client when the registry is read. prom-client's own inc builds the label
// set's key string on every call, which made it the largest allocator of a request after Node's
// HTTP; the figures scraped are the same.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type CounterConfiguration, type LabelValues } from 'prom-client'

export interface CoreMetrics {
  readonly registry: Registry
  readonly requests: Counter<'route' | 'status_class' | 'reason'>
  /** Counts an answered request in `requests`. */
  countRequest(route: string, statusClass: string, reason: string): void
  readonly duration: Histogram<'route' | 'status_class'>
  /** Observes an answered request's time in `duration`. */
  observeDuration(route: string, statusClass: string, seconds: number): void
  /** A request of the route was accepted: counted in tollgate_requests_in_flight until it leaves. */
  enter(route: string): void
  leave(route: string): void
  readonly pluginFailures: Counter<'plugin'>
  readonly shortCircuits: Counter<'plugin' | 'reason'>
  readonly upstreamDuration: Histogram<'provider' | 'model' | 'outcome'>
  /** Observes a model call's time in `upstreamDuration`. */
  observeUpstream(provider: string, model: string, outcome: 'ok' | 'error', seconds: number): void
  readonly upstreamFirstByte: Histogram<'provider' | 'model'>
  /** Observes a model call's time to its first text in `upstreamFirstByte`. */
  observeFirstByte(provider: string, model: string, seconds: number): void
}

/** One label set's count, bound once. */
export interface BoundCount {
  inc(value?: number): void
}

class PendingCount implements BoundCount {
  pending = 0
  readonly labels: LabelValues<string>

  constructor(labels: LabelValues<string>) {
    this.labels = labels
  }

  inc(value = 1): void {
    if (!(value >= 0)) throw new Error(`a counter only goes up: ${value}`)
    this.pending += value
  }
}

export interface BoundCounter<L extends string> {
  readonly counter: Counter<L>
  /** The count of one label set; bind each once, not per request. */
  bind(labels: LabelValues<L>): BoundCount
}

/** A counter whose label sets are bound once and whose increments reach it when it is read. */
export function boundCounter<L extends string>(config: Omit<CounterConfiguration<L>, 'collect'>): BoundCounter<L> {
  const counts: PendingCount[] = []
  const counter = new Counter<L>({
    ...config,
    collect() {
      for (const count of counts) {
        if (count.pending === 0) continue
        const value = count.pending
        count.pending = 0
        this.inc(count.labels as LabelValues<L>, value)
      }
    },
  })
  return {
    counter,
    bind(labels) {
      const count = new PendingCount(labels)
      counts.push(count)
      return count
    },
  }
}

/**
 * The map under `key`, made the first time. The request path finds each label set's bound count
 * or child through maps nested by label, which builds no key string and no labels object.
 */
function mapIn<V>(maps: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let map = maps.get(key)
  if (map === undefined) {
    map = new Map()
    maps.set(key, map)
  }
  return map
}

const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

export function createMetrics(): CoreMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  // A few default gauges end in _total, which Prometheus reserves for counters (promtool rejects them).
  for (const metric of registry.getMetricsAsArray()) {
    if (metric.name.endsWith('_total') && !(metric instanceof Counter)) registry.removeSingleMetric(metric.name)
  }
  const requests = boundCounter<'route' | 'status_class' | 'reason'>({
    name: 'tollgate_requests_total',
    help: 'Requests answered, by route, status class and outcome.',
    labelNames: ['route', 'status_class', 'reason'],
    registers: [registry],
  })
  const answered = new Map<string, Map<string, Map<string, BoundCount>>>()
  const duration = new Histogram({
    name: 'tollgate_request_duration_seconds',
    help: 'Time from accepting a request to its last byte.',
    labelNames: ['route', 'status_class'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  })
  const durations = new Map<string, Map<string, Histogram.Internal<'route' | 'status_class'>>>()
  const upstreamDuration = new Histogram({
    name: 'tollgate_upstream_duration_seconds',
    help: 'Model calls from the first attempt to the last byte, retries included.',
    labelNames: ['provider', 'model', 'outcome'],
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  })
  const upstreamCalls = new Map<string, Map<string, Map<string, Histogram.Internal<'provider' | 'model' | 'outcome'>>>>()
  const upstreamFirstByte = new Histogram({
    name: 'tollgate_upstream_first_byte_seconds',
    help: 'Model calls from the first attempt to the first text (the whole answer for non-streamed calls).',
    labelNames: ['provider', 'model'],
    buckets: UPSTREAM_BUCKETS,
    registers: [registry],
  })
  const firstBytes = new Map<string, Map<string, Histogram.Internal<'provider' | 'model'>>>()
  // Plain numbers per route, read into the gauge when it is scraped.
  const inFlight = new Map<string, number>()
  new Gauge({
    name: 'tollgate_requests_in_flight',
    help: 'Requests accepted and not yet answered.',
    labelNames: ['route'],
    registers: [registry],
    collect() {
      for (const [route, count] of inFlight) this.set({ route }, count)
    },
  })
  return {
    registry,
    requests: requests.counter,
    countRequest(route, statusClass, reason) {
      const byReason = mapIn(mapIn(answered, route), statusClass)
      let count = byReason.get(reason)
      if (count === undefined) {
        count = requests.bind({ route, status_class: statusClass, reason })
        byReason.set(reason, count)
      }
      count.inc()
    },
    duration,
    observeDuration(route, statusClass, seconds) {
      const byStatus = mapIn(durations, route)
      let child = byStatus.get(statusClass)
      if (child === undefined) {
        child = duration.labels(route, statusClass)
        byStatus.set(statusClass, child)
      }
      child.observe(seconds)
    },
    enter: (route) => inFlight.set(route, (inFlight.get(route) ?? 0) + 1),
    leave: (route) => inFlight.set(route, inFlight.get(route)! - 1),
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
    upstreamDuration,
    observeUpstream(provider, model, outcome, seconds) {
      const byOutcome = mapIn(mapIn(upstreamCalls, provider), model)
      let child = byOutcome.get(outcome)
      if (child === undefined) {
        child = upstreamDuration.labels(provider, model, outcome)
        byOutcome.set(outcome, child)
      }
      child.observe(seconds)
    },
    upstreamFirstByte,
    observeFirstByte(provider, model, seconds) {
      const byModel = mapIn(firstBytes, provider)
      let child = byModel.get(model)
      if (child === undefined) {
        child = upstreamFirstByte.labels(provider, model)
        byModel.set(model, child)
      }
      child.observe(seconds)
    },
  }
}

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx']

export function statusClass(status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100) - 1] ?? `${Math.floor(status / 100)}xx`
}
