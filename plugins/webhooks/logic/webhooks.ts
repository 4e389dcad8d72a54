// What a webhook record is made and changed into, whichever store keeps it, and what it subscribes to.
import type { WebhookRecord } from '../store/records.ts'
import type { NewWebhook, WebhookChanges } from '../store/webhook-store.ts'
import type { SecretBox } from './secret-box.ts'

/** A new, active webhook; its secret sealed to its id. */
export function newWebhook(id: string, input: NewWebhook, box: SecretBox, now: number): WebhookRecord {
  return {
    id,
    projectId: input.projectId,
    url: input.url,
    events: input.events,
    sealedSecret: box.seal(input.secret, id),
    active: true,
    created: new Date(now).toISOString(),
    consecutiveFailures: 0,
  }
}

/** The webhook with `changes` applied. Reactivating clears the failure count that may have disabled it. */
export function changedWebhook(record: WebhookRecord, changes: WebhookChanges, box: SecretBox): WebhookRecord {
  return {
    ...record,
    ...(changes.url === undefined ? {} : { url: changes.url }),
    ...(changes.events === undefined ? {} : { events: changes.events }),
    ...(changes.secret === undefined ? {} : { sealedSecret: box.seal(changes.secret, record.id) }),
    ...(changes.active === undefined ? {} : { active: changes.active }),
    ...(changes.active === true && !record.active ? { consecutiveFailures: 0 } : {}),
  }
}

/** Whether a webhook subscribed to events of this kind. */
export function isSubscribed(record: WebhookRecord, type: string): boolean {
  return record.events.some((kind) => kind === '*' || kind === type)
}
