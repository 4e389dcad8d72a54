// Whether this gateway can serve, for /readyz and the gauge tollgate_dependency_up. It is not
// ready only where nothing could be served: the store is closed, or PostgreSQL is away (every
// request's key lookup, budget hold and ledger entry are there). Redis holds only what the gateway
// serves around (a limited key's limits answer 503, or pass unchecked with failOpen; a cache
// lookup is a miss), so with Redis away the gateway stays ready and names it as degraded: a
// balancer that reads readiness does not drop every gateway while most traffic is served.
import { Gauge, type Registry } from 'prom-client'
import type { Database } from '../stores/database.ts'
import type { SharedRedis } from '../stores/redis.ts'

export interface Readiness {
  /** The parts without which nothing could be served; empty when ready. */
  notReady(): string[]
  /** The dependencies that are away and that the gateway serves around. */
  degraded(): string[]
  /** Each shared store configured, up or down. */
  dependencies(): { dependencies?: Record<string, 'up' | 'down'> }
}

interface Dependency {
  readonly name: 'postgres' | 'redis'
  readonly isUp: () => boolean
  /** Every request needs it: away, the gateway is not ready. */
  readonly required: boolean
}

export function trackReadiness(
  storeIsOpen: () => boolean,
  shared: { readonly database: Database | undefined; readonly redis: SharedRedis | undefined },
  registry: Registry,
): Readiness {
  const { database, redis } = shared
  const configured: Dependency[] = [
    ...(database === undefined ? [] : [{ name: 'postgres' as const, isUp: () => database.isUp(), required: true }]),
    ...(redis === undefined ? [] : [{ name: 'redis' as const, isUp: () => redis.isUp(), required: false }]),
  ]
  new Gauge({
    name: 'tollgate_dependency_up',
    help: '1 while the shared store answers, 0 while it is away; only the stores configured (postgres, redis).',
    labelNames: ['dependency'],
    registers: [registry],
    // Under --workers: down as soon as one process finds it down.
    aggregator: 'min',
    collect() {
      for (const dependency of configured) this.set({ dependency: dependency.name }, dependency.isUp() ? 1 : 0)
    },
  })
  const down = (required: boolean) => configured.filter((d) => d.required === required && !d.isUp()).map((d) => d.name)
  return {
    notReady: () => [...(storeIsOpen() ? [] : ['store']), ...down(true)],
    degraded: () => down(false),
    dependencies() {
      if (configured.length === 0) return {}
      return { dependencies: Object.fromEntries(configured.map((d) => [d.name, d.isUp() ? 'up' : 'down'])) }
    },
  }
}
