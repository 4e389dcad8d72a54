// The LMDB databases that hold and index the webhooks' records. The `due` index orders deliveries
// by the time the worker should next look at them.
import type { Database, Key } from 'lmdb'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { DeliveryRecord, WebhookRecord } from '../records.ts'

export interface WebhookDatabases {
  readonly hooks: Database<WebhookRecord, Key>
  /** `${projectId}/${webhookId}` → webhookId. */
  readonly projectHooks: Database<string, Key>
  readonly deliveries: Database<DeliveryRecord, Key>
  /** `${timeKey(dueAt)}/${deliveryId}` → deliveryId: what to attempt next, soonest first. */
  readonly due: Database<string, Key>
  /** `${webhookId}/${deliveryId}` → deliveryId; ids sort by creation time. */
  readonly hookDeliveries: Database<string, Key>
  /** `${timeKey(finishedAt)}/${deliveryId}` → deliveryId, for pruning old finished deliveries. */
  readonly finished: Database<string, Key>
}

export function openWebhookDatabases(store: PluginStore): WebhookDatabases {
  return {
    hooks: store.open<WebhookRecord>('hooks'),
    projectHooks: store.open<string>('project-hooks'),
    deliveries: store.open<DeliveryRecord>('deliveries'),
    due: store.open<string>('due'),
    hookDeliveries: store.open<string>('hook-deliveries'),
    finished: store.open<string>('finished'),
  }
}

/** Milliseconds as a fixed-width string, so string order is time order. */
export function timeKey(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(15, '0')
}

/** The range bounds of every key that starts with `${prefix}/`. */
export function prefixRange(prefix: string): { start: string; end: string } {
  // '0' is the character after '/', so this end bound is just past every `${prefix}/…` key.
  return { start: `${prefix}/`, end: `${prefix}0` }
}
