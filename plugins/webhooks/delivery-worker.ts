// The delivery loop of one process. It wakes when the store says events were emitted and polls
// for the rest (retries coming due, events it was not told of), moves outbox events into
// deliveries, then claims due deliveries and sends them concurrently: at most `concurrency` at
// once, and at most `perWebhookConcurrency` for one webhook, so a slow receiver holds a few slots, never all.
import type { Logger } from 'pino'
import type { Clock } from '../../proxy/kit/clock.ts'
import type { WebhookMetrics } from './metrics.ts'
import type { AttemptRunner } from './run-attempt.ts'
import type { WebhooksConfig } from './schema.ts'
import type { Claim, WebhookStore } from './store/webhook-store.ts'

interface WorkerDeps {
  readonly store: WebhookStore
  readonly runAttempt: AttemptRunner
  readonly clock: Clock
  readonly log: Logger
  readonly metrics: WebhookMetrics
  readonly config: WebhooksConfig
}

interface DeliveryWorker {
  /** Runs the loop soon; calls while it runs make it run once more. */
  wake(): void
  /** Stops polling and waits for the attempts in flight to end or be given back. */
  close(): Promise<void>
}

const PRUNE_INTERVAL_MS = 60_000
const PRUNE_BATCH = 500

export function startDeliveryWorker(deps: WorkerDeps): DeliveryWorker {
  const { store, runAttempt, clock, log, metrics, config } = deps
  const inFlight = new Map<string, { webhookId: string; done: Promise<void> }>()
  let running: Promise<void> | undefined
  let again = false
  let stopped = false
  let lastPrune = -Infinity

  async function pass(): Promise<void> {
    let taken: number
    do taken = await store.fanOut(config.batchSize, clock.now())
    while (taken === config.batchSize)
    const { claims, abandoned } = await claimDue()
    for (let i = 0; i < abandoned; i++) metrics.count('abandoned')
    for (const claim of claims) start(claim)
    const now = clock.now()
    if (now - lastPrune >= PRUNE_INTERVAL_MS) {
      lastPrune = now
      await store.prune(now - config.retentionDays * 86_400_000, PRUNE_BATCH)
    }
  }

  async function claimDue(): Promise<{ claims: Claim[]; abandoned: number }> {
    const slots = config.concurrency - inFlight.size
    if (slots <= 0 || stopped) return { claims: [], abandoned: 0 }
    const sending = new Map([...inFlight].map(([id, job]) => [id, job.webhookId]))
    return store.claimDue(clock.now(), config.timeoutMs, { slots, perWebhookConcurrency: config.perWebhookConcurrency, inFlight: sending })
  }

  function start(claim: Claim): void {
    const id = claim.claimed.id
    const done = runAttempt(claim)
      .then(
        () => undefined,
        (err: unknown) => log.error({ err, deliveryId: id }, 'webhook delivery attempt failed to record'),
      )
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

  store.onEvents(wake)
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
