// Turns LMDB outbox events into deliveries. One transaction per batch creates a delivery for every
// active webhook of the event's project that subscribed to its kind and removes the events from
// the outbox, so a crash loses nothing, and a second worker (here or in another process on the
// same store) finds the events gone and cannot create the deliveries twice.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { DeliveryRecords } from './delivery-records.ts'
import type { WebhookRecord } from '../records.ts'
import { isSubscribed } from '../../logic/webhooks.ts'
import type { WebhookRecords } from './webhook-records.ts'

/** Moves up to `batchSize` events into deliveries; resolves to the number of events taken. */
export function fanOut(
  store: PluginStore,
  outbox: EventOutbox,
  hooks: WebhookRecords,
  deliveries: DeliveryRecords,
  now: number,
  batchSize: number,
): Promise<number> {
  return store.transaction(() => {
    const events = outbox.pending(batchSize)
    const activeByProject = new Map<string, WebhookRecord[]>()
    for (const event of events) {
      let active = activeByProject.get(event.project_id)
      if (active === undefined) activeByProject.set(event.project_id, (active = hooks.list(event.project_id).filter((hook) => hook.active)))
      for (const hook of active) if (isSubscribed(hook, event.type)) deliveries.add(hook, event, now)
    }
    outbox.remove(events.map((event) => event.id))
    return events.length
  })
}
