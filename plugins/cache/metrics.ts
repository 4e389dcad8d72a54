// The cache's Prometheus metrics. The only label is the lookup result, a fixed set of four.
import { Counter, Gauge, type Registry } from 'prom-client'

export type LookupResult = 'hit' | 'miss' | 'coalesced' | 'bypass'

export type CacheCounters = Readonly<Record<LookupResult, { inc(): void }>>

/** Counters per result, bound to their label once so the request path does no label lookup. */
export function createCacheMetrics(registry: Registry, countEntries: () => number): CacheCounters {
  const requests = new Counter({
    name: 'tollgate_cache_requests_total',
    help: 'AI requests by cache result: hit (stored answer), coalesced (a concurrent identical request\'s answer), miss, bypass (cache not consulted).',
    labelNames: ['result'],
    registers: [registry],
  })
  new Gauge({
    name: 'tollgate_cache_entries',
    help: 'Answers in the cache store (shared by every process on the store).',
    registers: [registry],
    collect() {
      this.set(countEntries())
    },
  })
  return {
    hit: requests.labels({ result: 'hit' }),
    miss: requests.labels({ result: 'miss' }),
    coalesced: requests.labels({ result: 'coalesced' }),
    bypass: requests.labels({ result: 'bypass' }),
  }
}
