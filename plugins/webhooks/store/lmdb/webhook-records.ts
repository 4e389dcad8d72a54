// Registered webhooks: create, read, change and delete, always within one project. The writes
// run inside the caller's store transaction so they combine with delivery changes atomically.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { NewId } from '../../ids.ts'
import type { WebhookRecord } from '../records.ts'
import { prefixRange, type WebhookDatabases } from './databases.ts'
import type { SecretBox } from '../../logic/secret-box.ts'
import { changedWebhook, newWebhook } from '../../logic/webhooks.ts'
import type { NewWebhook, WebhookChanges } from '../webhook-store.ts'

export function createWebhookRecords(db: WebhookDatabases, box: SecretBox, clock: Clock, newId: NewId) {
  const { hooks, projectHooks } = db
  return {
    /** Inside a transaction. */
    create(input: NewWebhook): WebhookRecord {
      const record = newWebhook(newId('wh_'), input, box, clock.now())
      hooks.put(record.id, record)
      projectHooks.put(`${input.projectId}/${record.id}`, record.id)
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

    /** Inside a transaction. */
    update(record: WebhookRecord, changes: WebhookChanges): WebhookRecord {
      const next = changedWebhook(record, changes, box)
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
  }
}

export type WebhookRecords = ReturnType<typeof createWebhookRecords>
