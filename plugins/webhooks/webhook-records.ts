// Registered webhooks: create, read, change and delete, always within one project. The writes
// run inside the caller's store transaction so they combine with delivery changes atomically.
import type { Clock } from '../../proxy/clock.ts'
import type { NewId } from './ids.ts'
import { prefixRange, type Subscription, type WebhookDatabases, type WebhookRecord } from './records.ts'
import type { SecretBox } from './secret-box.ts'

export interface NewWebhook {
  readonly projectId: string
  readonly url: string
  readonly events: readonly Subscription[]
  readonly secret: string
}

export interface WebhookChanges {
  readonly url?: string | undefined
  readonly events?: readonly Subscription[] | undefined
  readonly secret?: string | undefined
  readonly active?: boolean | undefined
}

export function createWebhookRecords(db: WebhookDatabases, box: SecretBox, clock: Clock, newId: NewId) {
  const { hooks, projectHooks } = db
  return {
    /** Inside a transaction. */
    create(input: NewWebhook): WebhookRecord {
      const id = newId('wh_')
      const record: WebhookRecord = {
        id, projectId: input.projectId, url: input.url, events: input.events, sealedSecret: box.seal(input.secret, id),
        active: true, created: new Date(clock.now()).toISOString(), consecutiveFailures: 0,
      }
      hooks.put(id, record)
      projectHooks.put(`${input.projectId}/${id}`, id)
      return record
    },

    /** The webhook, or undefined when it does not exist in this project. */
    inProject(projectId: string, id: string): WebhookRecord | undefined {
      const record = hooks.get(id)
      return record?.projectId === projectId ? record : undefined
    },

    byId(id: string): WebhookRecord | undefined {
      return hooks.get(id)
    },

    /** Oldest first. */
    list(projectId: string): WebhookRecord[] {
      return [...projectHooks.getRange(prefixRange(projectId))].flatMap(({ value }) => hooks.get(value) ?? [])
    },

    /** Inside a transaction. Reactivating clears the failure count that may have disabled it. */
    update(record: WebhookRecord, changes: WebhookChanges): WebhookRecord {
      const next: WebhookRecord = {
        ...record,
        ...(changes.url === undefined ? {} : { url: changes.url }),
        ...(changes.events === undefined ? {} : { events: changes.events }),
        ...(changes.secret === undefined ? {} : { sealedSecret: box.seal(changes.secret, record.id) }),
        ...(changes.active === undefined ? {} : { active: changes.active }),
        ...(changes.active === true && !record.active ? { consecutiveFailures: 0 } : {}),
      }
      hooks.put(record.id, next)
      return next
    },

    /** Inside a transaction. */
    put(record: WebhookRecord): void {
      hooks.put(record.id, record)
    },

    /** Inside a transaction. */
    remove(record: WebhookRecord): void {
      hooks.remove(record.id)
      projectHooks.remove(`${record.projectId}/${record.id}`)
    },

    secretOf(record: WebhookRecord): string {
      return box.open(record.sealedSecret, record.id)
    },
  }
}

export type WebhookRecords = ReturnType<typeof createWebhookRecords>

/** Whether a webhook subscribed to events of this kind. */
export function isSubscribed(record: WebhookRecord, type: string): boolean {
  return record.events.some((kind) => kind === '*' || kind === type)
}
