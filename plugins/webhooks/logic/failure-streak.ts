// A webhook that keeps failing is switched off instead of being retried forever: after `limit`
// deliveries in a row end failed, it is disabled and its project gets an alert.created event,
// which each store records in the same transaction as the delivery that tipped it over.
import type { NewId } from '../ids.ts'
import type { Settlement } from './delivery-states.ts'
import type { WebhookRecord } from '../store/records.ts'

/**
 * The webhook after one of its deliveries finished, or undefined when nothing about it changes
 * (deleted, already inactive, or a success after a success).
 */
export function afterFinished(hook: WebhookRecord | undefined, settlement: Exclude<Settlement, 'retrying'>, limit: number): WebhookRecord | undefined {
  if (hook === undefined || !hook.active) return undefined
  if (settlement === 'succeeded') return hook.consecutiveFailures > 0 ? { ...hook, consecutiveFailures: 0 } : undefined
  const consecutiveFailures = hook.consecutiveFailures + 1
  return consecutiveFailures < limit ? { ...hook, consecutiveFailures } : { ...hook, consecutiveFailures, active: false }
}

/** The alert.created event's data telling a project its webhook was disabled. */
export function disabledAlert(hook: WebhookRecord, newId: NewId): Record<string, unknown> {
  return {
    alert_id: newId('alt_'),
    severity: 'HIGH',
    title: 'Webhook disabled',
    // The host only: a URL's path or query may carry a receiver's token.
    message: `Webhook ${hook.id} (${new URL(hook.url).host}) was disabled after ${hook.consecutiveFailures} consecutive failed deliveries. Fix the receiver, then set active to true.`,
  }
}
