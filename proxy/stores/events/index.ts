// The gateway's events (the spec's kinds and delivery body) and the outboxes that hold them until
// webhook delivery takes them: the LMDB one in the gateway's own store (lmdb.ts), always, and with
// DATABASE_URL the PostgreSQL one all gateways share (postgres.ts). A plugin records an event with
// the change that caused it, in the store that holds its records.
import type { RootDatabase } from 'lmdb'
import type { Logger } from 'pino'
import type { Clock } from '../../kit/clock.ts'
import { randomHex } from '../../kit/random-pool.ts'
import type { PluginDatabase, Sql } from '../database.ts'
import { createOutbox } from './lmdb.ts'
import { openSharedEvents } from './postgres.ts'

/** The spec's event kinds. */
export const EVENT_KINDS = [
  'alert.created',
  'alert.acknowledged',
  'alert.resolved',
  'case.created',
  'case.updated',
  'case.resolved',
  'violation.detected',
  'violation.resolved',
  'compliance.score_changed',
  'usage.threshold_reached',
  'usage.limit_exceeded',
] as const

export type EventKind = (typeof EVENT_KINDS)[number]

/** The spec's delivery body. */
export interface GatewayEvent {
  readonly id: string
  readonly type: EventKind
  readonly timestamp: string
  readonly project_id: string
  readonly data: Readonly<Record<string, unknown>>
}

export interface EventOutbox {
  /**
   * Records an event. Call it inside the store transaction that makes the change, so both
   * commit together; outside one it is a write of its own.
   */
  emit(type: EventKind, projectId: string, data: Record<string, unknown>): GatewayEvent
  /** Events not yet taken, oldest first. */
  pending(limit: number): GatewayEvent[]
  /** Removes taken events; call inside the consumer's transaction. */
  remove(ids: readonly string[]): void
  /** Calls `listener` after each emit in this process (other processes are seen by polling). */
  onEmit(listener: () => void): void
}

let sequence = 0

/** Time first so ids sort oldest first; a counter and random bytes keep them unique across processes. */
export function eventId(now: number): string {
  return `evt_${now.toString(36).padStart(9, '0')}${(sequence++ % 46_656).toString(36).padStart(3, '0')}${randomHex(6)}`
}

export interface SharedEventOutbox {
  /** Records an event in the transaction `sql` belongs to; it exists, and is announced, once that commits. */
  emit(sql: Sql, type: EventKind, projectId: string, data: Record<string, unknown>): Promise<GatewayEvent>
  /**
   * Takes up to `limit` events, oldest first, that no other transaction holds, and deletes them in
   * `sql`'s transaction: a rollback gives them back.
   */
  take(sql: Sql, limit: number): Promise<GatewayEvent[]>
  /** Calls `listener` after any gateway commits an event, and after a lost notification connection is made again. */
  onEmit(listener: () => void): void
  close(): Promise<void>
}

/** The outboxes a gateway opens: plugins get both in their deps. */
export interface Outboxes {
  readonly local: EventOutbox
  /** Only with DATABASE_URL. */
  readonly shared: SharedEventOutbox | undefined
}

/** `database` is the core's own handle (`forPlugin('core')`) when there is a database: the shared table and channel are the core's. */
export async function openOutboxes(root: RootDatabase, database: PluginDatabase | undefined, clock: Clock, log: Logger): Promise<Outboxes> {
  return {
    local: createOutbox(root, clock),
    shared: database === undefined ? undefined : await openSharedEvents(database, clock, log),
  }
}
