// The cache's Prometheus metrics. The labels are fixed sets: the lookup result, and the store
// operation that failed.
import { Gauge, type Registry } from 'prom-client'
import { boundCounter } from '../../proxy/metrics.ts'

type LookupResult = 'hit' | 'miss' | 'coalesced' | 'bypass'

type Inc = { inc(): void }

interface CacheCounters extends Readonly<Record<LookupResult, Inc>> {
  /** A lookup the store could not answer (taken as a miss), and a write it dropped. */
  readonly failed: Readonly<Record<'lookup' | 'store', Inc>>
}

/** Counters bound to their label once, so the request path only adds to a number. */
export function createCacheMetrics(registry: Registry, countEntries: () => number | Promise<number>): CacheCounters {
  const requests = boundCounter({
    name: 'tollgate_cache_requests_total',
    help: "AI requests by cache result: hit (stored answer), coalesced (a concurrent identical request's answer), miss, bypass (cache not consulted).",
    labelNames: ['result'],
    registers: [registry],
  })
  const failures = boundCounter({
    name: 'tollgate_cache_store_failures_total',
    help: 'Cache store operations that failed (Redis away): a lookup is then a miss, and an answer that could not be stored is dropped.',
    labelNames: ['operation'],
    registers: [registry],
  })
  new Gauge({
    name: 'tollgate_cache_entries',
    help: 'Answers in the cache store, shared by every process (LMDB) or every gateway (Redis) on it; the last known count while Redis is away.',
    registers: [registry],
    async collect() {
      try {
        this.set(await countEntries())
      } catch {
        // Redis away: the gauge keeps its last count and the scrape still answers; /readyz says why.
      }
    },
  })
  return {
    hit: requests.bind({ result: 'hit' }),
    miss: requests.bind({ result: 'miss' }),
    coalesced: requests.bind({ result: 'coalesced' }),
    bypass: requests.bind({ result: 'bypass' }),
    failed: { lookup: failures.bind({ operation: 'lookup' }), store: failures.bind({ operation: 'store' }) },
  }
}
