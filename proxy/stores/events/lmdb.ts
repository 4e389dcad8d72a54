// The event outbox in the gateway's own LMDB store: plugins record events in the same transaction
// as the change that caused them, so a crash can neither lose an event nor send one for a change
// that did not happen. Consumers (webhook delivery) take events out in their own transactions.
import type { Database, Key, RootDatabase } from 'lmdb'
import type { Clock } from '../../kit/clock.ts'
import { eventId, type EventOutbox, type GatewayEvent } from './index.ts'

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
