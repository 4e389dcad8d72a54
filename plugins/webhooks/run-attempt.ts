// Sends one claimed delivery and records what happened, in one transaction: the attempt's
// result, the next attempt or the end of the delivery, and the webhook's failure streak.
// Shared by the delivery worker and the test endpoint.
import type { Logger } from 'pino'
import type { Dispatcher } from 'undici'
import type { Clock } from '../../proxy/clock.ts'
import type { EventOutbox } from '../../proxy/events.ts'
import type { PluginStore } from '../../proxy/store.ts'
import { attemptDelivery } from './attempt-delivery.ts'
import type { AttemptResult, DeliveryRecords, Settlement } from './delivery-records.ts'
import { countFinishedDelivery } from './failure-streak.ts'
import type { NewId } from './ids.ts'
import type { WebhookMetrics } from './metrics.ts'
import type { DeliveryRecord, WebhookRecord } from './records.ts'
import type { WebhookRecords } from './webhook-records.ts'

export interface AttemptDeps {
  readonly store: PluginStore
  readonly events: EventOutbox
  readonly hooks: WebhookRecords
  readonly deliveries: DeliveryRecords
  readonly dispatcher: Dispatcher
  readonly clock: Clock
  readonly log: Logger
  readonly metrics: WebhookMetrics
  readonly newId: NewId
  readonly timeoutMs: number
  readonly disableAfterFailures: number
  /** Aborts attempts in flight when the plugin closes. */
  readonly stop: AbortSignal
}

export interface Claim {
  readonly hook: WebhookRecord
  /** The delivery as claimed, holding the claim token. */
  readonly claimed: DeliveryRecord
  /** The delivery before the claim, restored if the attempt is interrupted by shutdown. */
  readonly before: DeliveryRecord
}

export interface AttemptOutcome {
  readonly record: DeliveryRecord
  readonly settlement: Settlement
  readonly result: AttemptResult
}

export function createAttemptRunner(deps: AttemptDeps) {
  const { store, hooks, deliveries, clock, log, metrics } = deps

  async function send({ hook, claimed }: Claim): Promise<AttemptResult> {
    let secret: string
    try {
      secret = hooks.secretOf(hook)
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
      await store.transaction(() => deliveries.release(claim.claimed, claim.before))
      return undefined
    }
    const recorded = await store.transaction(() => {
      const now = clock.now()
      const settled = deliveries.settle(claim.claimed, result, now)
      if (settled === undefined || settled.record.test || settled.settlement === 'retrying') return { settled, disabled: undefined }
      const disabled = countFinishedDelivery(hooks, deps.events, deps.newId, claim.hook.id, settled.settlement, deps.disableAfterFailures)
      return { settled, disabled }
    })
    metrics.observeAttempt(result.durationMs / 1000)
    if (recorded.settled === undefined) return undefined
    metrics.count(recorded.settled.settlement)
    if (recorded.disabled !== undefined) {
      log.warn({ webhookId: recorded.disabled.id, projectId: recorded.disabled.projectId, consecutiveFailures: recorded.disabled.consecutiveFailures }, 'webhook disabled after consecutive failed deliveries')
    }
    return { ...recorded.settled, result }
  }
}

export type AttemptRunner = ReturnType<typeof createAttemptRunner>
