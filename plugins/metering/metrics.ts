// Metering's metrics: tokens and dollars charged, by provider and model (each pair's children bound
// once, so a request only adds to numbers), model calls served unpriced, and counts of streamed
// text the pool left to the event loop.
import { Counter, type Registry } from 'prom-client'
import { boundCounter, type BoundCount } from '../../proxy/metrics.ts'
import type { PoolRefusal } from './count-streamed-text.ts'
import type { LedgerEntry } from './store/records.ts'

interface ChargeCounters {
  readonly input: BoundCount
  readonly output: BoundCount
  readonly dollars: BoundCount
}

export interface ChargeMetrics {
  /** Counts a settled entry (a cache hit counts nothing) under `metricModel`, the model's bounded label. */
  charged(entry: LedgerEntry, metricModel: string): void
}

export function chargeMetrics(metrics: Registry): ChargeMetrics {
  const tokensMetered = boundCounter({
    name: 'tollgate_tokens_total',
    help: 'Tokens metered, by provider, model and direction (cache hits excluded).',
    labelNames: ['provider', 'model', 'direction'],
    registers: [metrics],
  })
  const dollarsCharged = boundCounter({
    name: 'tollgate_cost_dollars_total',
    help: 'Dollars charged at list price, by provider and model.',
    labelNames: ['provider', 'model'],
    registers: [metrics],
  })
  const bound = new Map<string, ChargeCounters>()
  const countersOf = (provider: string, model: string): ChargeCounters => {
    const key = `${provider}\0${model}`
    let counters = bound.get(key)
    if (counters === undefined) {
      counters = {
        input: tokensMetered.bind({ provider, model, direction: 'input' }),
        output: tokensMetered.bind({ provider, model, direction: 'output' }),
        dollars: dollarsCharged.bind({ provider, model }),
      }
      bound.set(key, counters)
    }
    return counters
  }
  const unpricedServed = new Counter({
    name: 'tollgate_unpriced_requests_total',
    help: 'Model calls served under a name the model table does not list (unpricedModels): charged nothing, recorded as unpriced.',
    labelNames: ['provider'],
    registers: [metrics],
  })
  return {
    charged(entry, metricModel) {
      if (entry.cacheHit) return
      if (entry.unpriced !== undefined) unpricedServed.inc({ provider: entry.provider })
      const counters = countersOf(entry.provider, metricModel)
      counters.input.inc(entry.promptTokens)
      counters.output.inc(entry.completionTokens)
      counters.dollars.inc(entry.costMicros / 1e6)
    },
  }
}

/** Counts a pool task of streamed text counted on the event loop instead, by why. */
export function poolFallbackCounter(metrics: Registry): (reason: PoolRefusal) => void {
  const countedInline = new Counter({
    name: 'tollgate_metering_pool_fallbacks_total',
    help: 'Pool tasks of streamed text that metering counted on the event loop instead: the pool refused them (overloaded: its queue was full), failed them, or did not finish them in time (timeout).',
    labelNames: ['reason'],
    registers: [metrics],
  })
  return (reason) => countedInline.inc({ reason })
}
