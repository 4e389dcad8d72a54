// Sends one claimed delivery and records what happened, in one transaction: the attempt's
// result, the next attempt or the end of the delivery, and the webhook's failure streak.
// Shared by the delivery worker and the test endpoint.
import type { Logger } from 'pino'
import type { Dispatcher } from 'undici'
import type { Clock } from '../../proxy/kit/clock.ts'
import { attemptDelivery } from './attempt-delivery.ts'
import type { AttemptResult, Settlement } from './logic/delivery-states.ts'
import type { WebhookMetrics } from './metrics.ts'
import type { DeliveryRecord } from './store/records.ts'
import type { SecretBox } from './logic/secret-box.ts'
import type { Claim, WebhookStore } from './store/webhook-store.ts'

interface AttemptDeps {
  readonly store: WebhookStore
  readonly box: SecretBox
  readonly dispatcher: Dispatcher
  readonly clock: Clock
  readonly log: Logger
  readonly metrics: WebhookMetrics
  readonly timeoutMs: number
  readonly disableAfterFailures: number
  /** Aborts attempts in flight when the plugin closes. */
  readonly stop: AbortSignal
}

interface AttemptOutcome {
  readonly record: DeliveryRecord
  readonly settlement: Settlement
  readonly result: AttemptResult
}

export function createAttemptRunner(deps: AttemptDeps) {
  const { store, box, clock, log, metrics } = deps

  async function send({ hook, claimed }: Claim): Promise<AttemptResult> {
    let secret: string
    try {
      secret = box.open(hook.sealedSecret, hook.id)
    } catch (err) {
      // Only a changed encryptionKey makes a stored secret unreadable.
      log.error({ err, webhookId: hook.id }, 'webhook secret cannot be decrypted; was encryptionKey changed?')
      return { ok: false, responseCode: null, error: 'the webhook secret cannot be decrypted', durationMs: 0 }
    }
    return attemptDelivery(
      { url: hook.url, secret, event: claimed.event },
      { dispatcher: deps.dispatcher, timestampS: Math.floor(clock.now() / 1000), timeoutMs: deps.timeoutMs, stop: deps.stop },
    )
  }

  /** Undefined when the attempt was interrupted by shutdown, or its claim was lost meanwhile. */
  return async function runAttempt(claim: Claim): Promise<AttemptOutcome | undefined> {
    let result: AttemptResult
    try {
      result = await send(claim)
    } catch (err) {
      if (!deps.stop.aborted) throw err
      await store.release(claim)
      return undefined
    }
    const recorded = await store.settle(claim, result, clock.now(), deps.disableAfterFailures)
    metrics.observeAttempt(result.durationMs / 1000)
    if (recorded.settled === undefined) return undefined
    metrics.count(recorded.settled.settlement)
    if (recorded.disabled !== undefined) {
      log.warn(
        { webhookId: recorded.disabled.id, projectId: recorded.disabled.projectId, consecutiveFailures: recorded.disabled.consecutiveFailures },
        'webhook disabled after consecutive failed deliveries',
      )
    }
    return { ...recorded.settled, result }
  }
}

export type AttemptRunner = ReturnType<typeof createAttemptRunner>
