// A webhook that keeps failing is switched off instead of being retried forever: after
// `limit` deliveries in a row end failed, it is disabled and its project gets an alert.created
// event, in the same transaction as the delivery that tipped it over.
import type { EventOutbox } from '../../proxy/events.ts'
import type { NewId } from './ids.ts'
import type { Settlement } from './delivery-records.ts'
import type { WebhookRecord } from './records.ts'
import type { WebhookRecords } from './webhook-records.ts'

/**
 * Inside a transaction: counts a finished delivery toward its webhook's streak of failures.
 * Returns the webhook when this delivery disabled it.
 */
export function countFinishedDelivery(
  hooks: WebhookRecords, events: EventOutbox, newId: NewId,
  webhookId: string, settlement: Exclude<Settlement, 'retrying'>, limit: number,
): WebhookRecord | undefined {
  const hook = hooks.byId(webhookId)
  if (hook === undefined || !hook.active) return undefined
  if (settlement === 'succeeded') {
    if (hook.consecutiveFailures > 0) hooks.put({ ...hook, consecutiveFailures: 0 })
    return undefined
  }
  const consecutiveFailures = hook.consecutiveFailures + 1
  if (consecutiveFailures < limit) {
    hooks.put({ ...hook, consecutiveFailures })
    return undefined
  }
  const disabled = { ...hook, consecutiveFailures, active: false }
  hooks.put(disabled)
  events.emit('alert.created', hook.projectId, {
    alert_id: newId('alt_'),
    severity: 'HIGH',
    title: 'Webhook disabled',
    // The host only: a URL's path or query may carry a receiver's token.
    message: `Webhook ${hook.id} (${new URL(hook.url).host}) was disabled after ${consecutiveFailures} consecutive failed deliveries. Fix the receiver, then set active to true.`,
  })
  return disabled
}
