// The event outbox: plugins record events in the same LMDB transaction as the change that caused
// them, so a crash can neither lose an event nor send one for a change that did not happen.
// Consumers (webhook delivery) take events out in their own transactions.
import { randomHex } from '../../kit/random-pool.ts'
import type { Database, Key, RootDatabase } from 'lmdb'
import type { Clock } from '../../kit/clock.ts'

/** The spec's event kinds. */
export const EVENT_KINDS = [
  'alert.created', 'alert.acknowledged', 'alert.resolved',
  'case.created', 'case.updated', 'case.resolved',
  'violation.detected', 'violation.resolved', 'compliance.score_changed',
  'usage.threshold_reached', 'usage.limit_exceeded',
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

export function createOutbox(root: RootDatabase, clock: Clock): EventOutbox {
  const events: Database<GatewayEvent, Key> = root.openDB({ name: 'core/events' })
  const listeners: Array<() => void> = []
  return {
    emit(type, projectId, data) {
      const now = clock.now()
      const event: GatewayEvent = { id: eventId(now), type, timestamp: new Date(now).toISOString(), project_id: projectId, data }
      events.put(event.id, event)
      queueMicrotask(() => {
        for (const listener of listeners) listener()
      })
      return event
    },
    pending(limit) {
      return [...events.getRange({ limit }).map(({ value }) => value)]
    },
    remove(ids) {
      for (const id of ids) events.remove(id)
    },
    onEmit(listener) {
      listeners.push(listener)
    },
  }
}
