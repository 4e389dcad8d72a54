// The webhooks plugin's stored records and the databases that hold and index them. Deliveries are
// durable: each carries its schedule, and the `due` index orders them by the time the worker
// should next look at them, so a restart resumes exactly where the last process stopped.
import type { Database, Key } from 'lmdb'
import type { EventKind, GatewayEvent } from '../../proxy/stores/events.ts'
import type { PluginStore } from '../../proxy/stores/store.ts'

/** An event kind, or `*` for every kind. */
export type Subscription = EventKind | '*'

export interface WebhookRecord {
  readonly id: string
  readonly projectId: string
  readonly url: string
  readonly events: readonly Subscription[]
  /** The secret, sealed by secret-box.ts; never leaves the plugin in clear except to sign. */
  readonly sealedSecret: string
  readonly active: boolean
  readonly created: string
  /** Deliveries in a row that ended failed; reset by a success or by reactivation. */
  readonly consecutiveFailures: number
}

type DeliveryStatus = 'pending' | 'succeeded' | 'failed'

export interface DeliveryRecord {
  readonly id: string
  readonly webhookId: string
  /** Sent as is on every attempt, so the event id never changes. */
  readonly event: GatewayEvent
  /** Sent by POST /api/webhooks/test: one attempt, no retries, not counted toward disabling. */
  readonly test: boolean
  readonly status: DeliveryStatus
  readonly attempts: number
  readonly firstAttemptAt: number | null
  readonly lastAttemptAt: number | null
  readonly responseCode: number | null
  readonly error: string | null
  /** The scheduled time of the next attempt; null once finished and while an attempt is in flight. */
  readonly nextAttemptAt: number | null
  /** Its key time in the `due` index: the next attempt, or the end of a claim's lease while sending. */
  readonly dueAt: number | null
  /** Set while a worker holds the delivery; only that worker may record the attempt's outcome. */
  readonly claim: string | null
  readonly created: number
  readonly finishedAt: number | null
}

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
