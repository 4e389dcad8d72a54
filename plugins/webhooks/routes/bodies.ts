// Request bodies and queries of the webhook endpoints.
import { z } from 'zod'
import { EVENT_KINDS } from '../../../proxy/stores/events/index.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const required = (name: string, type: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : `${name} must be ${type}`),
})

const url = z.string(required('url', 'a string')).min(1, 'url is required').max(2048, 'url must be at most 2048 characters')

const eventList = z
  .array(z.enum([...EVENT_KINDS, '*'], { error: `each event must be one of ${EVENT_KINDS.join(', ')}, or *` }), required('events', 'an array of event kinds'))
  .min(1, 'events must list at least one event kind, or *')
  .transform((kinds) => [...new Set(kinds)])

const secret = z.string(required('secret', 'a string')).min(16, 'secret must hold at least 16 characters').max(512, 'secret must be at most 512 characters')

export const createWebhookBody = z.strictObject({ url, events: eventList, secret })

export const updateWebhookBody = z
  .strictObject({
    url: url.optional(),
    events: eventList.optional(),
    secret: secret.optional(),
    active: z.boolean({ error: 'active must be true or false' }).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'send at least one of url, events, secret, active')

export const testWebhookBody = z.strictObject({
  webhook_id: z.string(required('webhook_id', 'a string')).min(1, 'webhook_id is required'),
  event_type: oneOf('event_type', EVENT_KINDS),
})

export const deliveriesQuery = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(100, 'limit must be at most 100')
    .default(20),
})

export type CreateWebhookBody = z.output<typeof createWebhookBody>
export type UpdateWebhookBody = z.output<typeof updateWebhookBody>
export type TestWebhookBody = z.output<typeof testWebhookBody>
