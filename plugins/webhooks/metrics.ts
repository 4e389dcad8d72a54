// The webhooks' Prometheus metrics. The only label is a delivery outcome, a fixed set of four.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'

/** succeeded / retrying / failed: an attempt's result; abandoned: a delivery ended unsent (its webhook was inactive). */
type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed' | 'abandoned'

export interface WebhookMetrics {
  count(outcome: DeliveryOutcome): void
  observeAttempt(seconds: number): void
}

/** `countPending` may fail (a shared store away): the gauge then keeps its last value. */
export function createWebhookMetrics(registry: Registry, countPending: () => Promise<number>): WebhookMetrics {
  const deliveries = new Counter({
    name: 'tollgate_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed after the last attempt), and deliveries abandoned unsent.',
    labelNames: ['outcome'],
    registers: [registry],
  })
  const duration = new Histogram({
    name: 'tollgate_webhook_delivery_duration_seconds',
    help: "Time of one webhook delivery attempt, from connecting to the receiver's status.",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  })
  let pending = 0
  new Gauge({
    name: 'tollgate_webhook_pending',
    help: 'Webhook deliveries not yet finished (shared by every process on the store).',
    registers: [registry],
    // Every process reads the same store, so summing across cluster workers would multiply it.
    aggregator: 'max',
    async collect() {
      pending = await countPending().catch(() => pending)
      this.set(pending)
    },
  })
  return {
    count: (outcome) => deliveries.inc({ outcome }),
    observeAttempt: (seconds) => duration.observe(seconds),
  }
}
