// What the endpoints show of the records. A webhook's secret is never shown.
import { z } from 'zod'
import type { DeliveryRecord, WebhookRecord } from '../store/records.ts'

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

const instant = z.iso.datetime()

/** webhookView's answer, for /openapi.json. */
export const webhookAnswer = z.object({ id: z.string(), url: z.string(), events: z.array(z.string()), active: z.boolean(), created: instant })

/** deliveryView's answer, for /openapi.json. */
export const deliveryAnswer = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  response_code: z.number().int().nullable(),
  error: z.string().nullable(),
  next_attempt: instant.nullable(),
  last_attempt: instant.nullable(),
  created: instant.nullable(),
  test: z.boolean(),
})

export function webhookView(record: WebhookRecord) {
  return { id: record.id, url: record.url, events: record.events, active: record.active, created: record.created }
}

/** `next_attempt` is null once the delivery finished, and while an attempt is in progress. */
export function deliveryView(record: DeliveryRecord) {
  return {
    id: record.id,
    webhook_id: record.webhookId,
    event_id: record.event.id,
    event_type: record.event.type,
    status: record.status,
    attempts: record.attempts,
    response_code: record.responseCode,
    error: record.error,
    next_attempt: iso(record.nextAttemptAt),
    last_attempt: iso(record.lastAttemptAt),
    created: iso(record.created),
    test: record.test,
  }
}
