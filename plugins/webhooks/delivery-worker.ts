// The delivery loop of one process. It wakes on every event emitted in this process and polls
// for the rest (other processes emit too), moves outbox events into deliveries, then claims due
// deliveries and sends them concurrently: at most `concurrency` at once, and at most
// `perWebhookConcurrency` for one webhook, so a slow receiver holds a few slots, never all.
import type { Logger } from 'pino'
import type { Clock } from '../../proxy/clock.ts'
import type { EventOutbox } from '../../proxy/events.ts'
import type { PluginStore } from '../../proxy/store.ts'
import type { DeliveryRecords } from './delivery-records.ts'
import { fanOut } from './fan-out.ts'
import type { WebhookMetrics } from './metrics.ts'
import type { AttemptRunner, Claim } from './run-attempt.ts'
import type { WebhooksConfig } from './schema.ts'
import type { WebhookRecords } from './webhook-records.ts'

export interface WorkerDeps {
  readonly store: PluginStore
  readonly outbox: EventOutbox
  readonly hooks: WebhookRecords
  readonly deliveries: DeliveryRecords
  readonly runAttempt: AttemptRunner
  readonly clock: Clock
  readonly log: Logger
  readonly metrics: WebhookMetrics
  readonly config: WebhooksConfig
}

export interface DeliveryWorker {
  /** Runs the loop soon; calls while it runs make it run once more. */
  wake(): void
  /** Stops polling and waits for the attempts in flight to end or be given back. */
  close(): Promise<void>
}

// Due deliveries looked at per pass; deliveries of webhooks at their concurrency cap are skipped.
const SCAN_LIMIT = 1000
const PRUNE_INTERVAL_MS = 60_000
const PRUNE_BATCH = 500

export function startDeliveryWorker(deps: WorkerDeps): DeliveryWorker {
  const { store, outbox, hooks, deliveries, runAttempt, clock, log, metrics, config } = deps
  const inFlight = new Map<string, { webhookId: string; done: Promise<void> }>()
  let running: Promise<void> | undefined
  let again = false
  let stopped = false
  let lastPrune = -Infinity

  async function pass(): Promise<void> {
    let taken: number
    do taken = await fanOut(store, outbox, hooks, deliveries, clock, config.batchSize)
    while (taken === config.batchSize)
    const { claims, abandoned } = await claimDue()
    for (let i = 0; i < abandoned; i++) metrics.count('abandoned')
    for (const claim of claims) start(claim)
    const now = clock.now()
    if (now - lastPrune >= PRUNE_INTERVAL_MS) {
      lastPrune = now
      await store.transaction(() => deliveries.prune(now - config.retentionDays * 86_400_000, PRUNE_BATCH))
    }
  }

  function claimDue(): Promise<{ claims: Claim[]; abandoned: number }> {
    const slots = config.concurrency - inFlight.size
    if (slots <= 0 || stopped) return Promise.resolve({ claims: [], abandoned: 0 })
    return store.transaction(() => {
      const now = clock.now()
      const perHook = new Map<string, number>()
      for (const { webhookId } of inFlight.values()) perHook.set(webhookId, (perHook.get(webhookId) ?? 0) + 1)
      const claims: Claim[] = []
      let abandoned = 0
      for (const record of deliveries.dueBy(now, SCAN_LIMIT)) {
        if (claims.length === slots) break
        // Still being sent here: the clock passed its lease, but this process holds it.
        if (inFlight.has(record.id)) continue
        const hook = hooks.byId(record.webhookId)
        if (hook === undefined || !hook.active) {
          deliveries.abandon(record, now, hook === undefined ? 'webhook deleted' : 'webhook inactive')
          abandoned++
          continue
        }
        const held = perHook.get(hook.id) ?? 0
        if (held >= config.perWebhookConcurrency) continue
        perHook.set(hook.id, held + 1)
        const claimed = deliveries.claim(record, now, config.timeoutMs)
        claims.push({ hook, claimed, before: record })
      }
      return { claims, abandoned }
    })
  }

  function start(claim: Claim): void {
    const id = claim.claimed.id
    const done = runAttempt(claim)
      .then(() => undefined, (err: unknown) => log.error({ err, deliveryId: id }, 'webhook delivery attempt failed to record'))
      .finally(() => {
        inFlight.delete(id)
        wake()
      })
    inFlight.set(id, { webhookId: claim.hook.id, done })
  }

  function wake(): void {
    if (stopped) return
    if (running !== undefined) {
      again = true
      return
    }
    running = (async () => {
      do {
        again = false
        try {
          await pass()
        } catch (err) {
          log.error({ err }, 'webhook delivery pass failed')
        }
      } while (again && !stopped)
    })().finally(() => {
      running = undefined
    })
  }

  outbox.onEmit(wake)
  const poll = setInterval(wake, config.pollIntervalMs)
  poll.unref()
  wake()

  return {
    wake,
    async close() {
      stopped = true
      clearInterval(poll)
      await running
      await Promise.all([...inFlight.values()].map((job) => job.done))
    },
  }
}
