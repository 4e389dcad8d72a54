// How a delivery changes, whichever store keeps it: made pending, claimed for an attempt, settled
// by the attempt's result, or abandoned unsent. Pure functions, so LMDB and PostgreSQL schedule
// retries, leases and failures by the same rules.
import { randomUUID } from 'node:crypto'
import type { GatewayEvent } from '../../../proxy/stores/events/index.ts'
import type { DeliveryRecord, WebhookRecord } from '../store/records.ts'
import { nextAttemptAt } from './retry-schedule.ts'

/** One HTTP attempt's result. `error` is short and never holds the receiver's body. */
export interface AttemptResult {
  readonly ok: boolean
  readonly responseCode: number | null
  readonly error: string | null
  readonly durationMs: number
}

export type Settlement = 'succeeded' | 'retrying' | 'failed'

// A claim outlives the attempt's own deadline by this much before another worker may take the
// delivery over; only a process that died mid-attempt leaves a claim to run out.
const LEASE_MARGIN_MS = 60_000

/**
 * A pending delivery of `event` to `hook`, due at `now`. The event's fields are put in the spec's
 * order, whatever order the outbox it came from kept them in.
 */
export function newDelivery(id: string, hook: WebhookRecord, event: GatewayEvent, now: number, test = false): DeliveryRecord {
  const { id: eventId, type, timestamp, project_id, data } = event
  return {
    id,
    webhookId: hook.id,
    event: { id: eventId, type, timestamp, project_id, data },
    test,
    status: 'pending',
    attempts: 0,
    firstAttemptAt: null,
    lastAttemptAt: null,
    responseCode: null,
    error: null,
    nextAttemptAt: now,
    dueAt: now,
    claim: null,
    created: now,
    finishedAt: null,
  }
}

/**
 * The delivery taken for one attempt whose deadline is `timeoutMs`. The attempt counts from here,
 * so a process that dies while sending cannot retry a delivery forever.
 */
export function claimedDelivery(record: DeliveryRecord, now: number, timeoutMs: number): DeliveryRecord {
  return {
    ...record,
    attempts: record.attempts + 1,
    firstAttemptAt: record.firstAttemptAt ?? now,
    lastAttemptAt: now,
    nextAttemptAt: null,
    dueAt: now + timeoutMs + LEASE_MARGIN_MS,
    claim: randomUUID(),
  }
}

/** The claimed delivery after its attempt: the next attempt scheduled, or finished. */
export function settledDelivery(current: DeliveryRecord, result: AttemptResult, now: number): { record: DeliveryRecord; settlement: Settlement } {
  const attempted = { ...current, claim: null, responseCode: result.responseCode, error: result.error }
  const retryAt = result.ok || current.test ? undefined : nextAttemptAt(current.firstAttemptAt ?? now, current.attempts)
  const settlement: Settlement = result.ok ? 'succeeded' : retryAt === undefined ? 'failed' : 'retrying'
  const record: DeliveryRecord =
    retryAt !== undefined
      ? { ...attempted, status: 'pending', nextAttemptAt: retryAt, dueAt: retryAt }
      : { ...attempted, status: settlement === 'succeeded' ? 'succeeded' : 'failed', nextAttemptAt: null, dueAt: null, finishedAt: now }
  return { record, settlement }
}

/** A delivery ended without being attempted (its webhook was deleted or switched off). */
export function abandonedDelivery(record: DeliveryRecord, now: number, reason: string): DeliveryRecord {
  return { ...record, status: 'failed', claim: null, error: reason, nextAttemptAt: null, dueAt: null, finishedAt: now }
}

/** Whether `current` is still held by the claim `claimed` was made with. */
export function isStillClaimed(current: DeliveryRecord | undefined, claimed: DeliveryRecord): current is DeliveryRecord {
  return current !== undefined && current.claim === claimed.claim
}
