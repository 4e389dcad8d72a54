// Where webhooks and their deliveries are kept: LMDB on one host (lmdb/webhook-store.ts),
// PostgreSQL when several gateways share DATABASE_URL (postgres/webhook-store.ts), so that every
// gateway serves the same registrations and shares the sending. Either way an event becomes its
// deliveries in the transaction that takes it from the outbox, and a delivery is claimed in a
// transaction before it is sent, so no event is fanned out twice and no delivery sent twice by
// design.
import type { GatewayEvent } from '../../../proxy/stores/events/index.ts'
import type { ClaimLimits } from '../logic/claim-plan.ts'
import type { AttemptResult, Settlement } from '../logic/delivery-states.ts'
import type { DeliveryRecord, Subscription, WebhookRecord } from './records.ts'

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

export interface Claim {
  readonly hook: WebhookRecord
  /** The delivery as claimed, holding the claim token. */
  readonly claimed: DeliveryRecord
  /** The delivery before the claim, restored if the attempt is interrupted by shutdown. */
  readonly before: DeliveryRecord
}

export interface Settled {
  /** Undefined when the claim is no longer held (its lease ran out and another worker took it, or the webhook was deleted). */
  readonly settled?: { readonly record: DeliveryRecord; readonly settlement: Settlement } | undefined
  /** The webhook, when this delivery's failure disabled it. */
  readonly disabled?: WebhookRecord | undefined
}

export interface WebhookStore {
  createWebhook(input: NewWebhook): Promise<WebhookRecord>
  /** The webhook, or undefined when it does not exist in this project. */
  webhook(projectId: string, id: string): Promise<WebhookRecord | undefined>
  /** Oldest first. */
  webhooks(projectId: string): Promise<WebhookRecord[]>
  /** Undefined when the webhook does not exist in this project. Reactivating clears its failure count. */
  updateWebhook(projectId: string, id: string, changes: WebhookChanges): Promise<WebhookRecord | undefined>
  /** Removes the webhook and its deliveries; false when it does not exist in this project. */
  removeWebhook(projectId: string, id: string): Promise<boolean>

  delivery(id: string): Promise<DeliveryRecord | undefined>
  /** A webhook's deliveries, newest first. */
  recentDeliveries(webhookId: string, limit: number): Promise<DeliveryRecord[]>
  /** A pending delivery of `event`, unless the webhook is missing from the project or inactive. */
  queue(projectId: string, webhookId: string, event: GatewayEvent, now: number, test: boolean): Promise<DeliveryRecord | 'missing' | 'inactive'>
  /** A test delivery, made and claimed in one transaction; undefined when the webhook is not in the project. */
  queueClaimed(projectId: string, webhookId: string, event: GatewayEvent, now: number, timeoutMs: number): Promise<Claim | undefined>

  /** Moves up to `limit` outbox events into deliveries; resolves to the number of events taken. */
  fanOut(limit: number, now: number): Promise<number>
  /** Claims due deliveries within `limits`, and ends unsent those whose webhook is gone or off. */
  claimDue(now: number, timeoutMs: number, limits: ClaimLimits): Promise<{ claims: Claim[]; abandoned: number }>
  /**
   * Records a claimed attempt's result, schedules the next attempt or finishes the delivery, and
   * counts a finished one toward its webhook's failure streak, all in one transaction.
   */
  settle(claim: Claim, result: AttemptResult, now: number, disableAfterFailures: number): Promise<Settled>
  /** Gives a claim back unattempted (the process is stopping). */
  release(claim: Claim): Promise<void>
  /** Removes up to `limit` deliveries finished before `before`. */
  prune(before: number, limit: number): Promise<void>
  /** Deliveries not finished, across every process on the store. */
  pendingCount(): Promise<number>
  /** Calls `listener` when there may be events to fan out or deliveries to claim. */
  onEvents(listener: () => void): void
  close(): Promise<void>
}
