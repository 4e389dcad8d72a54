// The webhooks plugin's stored records, the same in either store. Deliveries are durable: each
// carries its schedule, so a restart resumes exactly where the last process stopped.
import type { EventKind, GatewayEvent } from '../../../proxy/stores/events/index.ts'

/** An event kind, or `*` for every kind. */
export type Subscription = EventKind | '*'

export interface WebhookRecord {
  readonly id: string
  readonly projectId: string
  readonly url: string
  readonly events: readonly Subscription[]
  /** The secret, sealed by logic/secret-box.ts; never leaves the plugin in clear except to sign. */
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
