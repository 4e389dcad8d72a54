// A webhook's deliveries: GET /api/webhooks/{id}/deliveries lists the recent ones, and
// POST …/deliveries/{delivery_id}/redeliver queues a finished one again as a new delivery of the
// same event (same event id, so receivers that deduplicate by id see it once).
import { z } from 'zod'
import { ConflictError, NotFoundError } from '../../../proxy/pipeline/errors.ts'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { validate } from '../../../proxy/http/validate.ts'
import { deliveriesQuery } from './bodies.ts'
import { ownWebhook, webhookNotFound, type RouteDeps } from './route-deps.ts'
import { deliveryAnswer, deliveryView } from './views.ts'

const keyTypes = ['sk', 'pk'] as const

export function deliveryRoutes(deps: RouteDeps): ProjectRouteSpec[] {
  const { store, clock } = deps
  return [
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/webhooks/:id/deliveries',
      name: 'webhooks_deliveries',
      docs: { query: deliveriesQuery, response: z.object({ deliveries: z.array(deliveryAnswer) }) },
      async handle(ctx, project) {
        const { limit } = validate(deliveriesQuery, Object.fromEntries(ctx.query), 'query')
        const hook = await ownWebhook(store, project.id, ctx.params.id!)
        return Reply.json({ deliveries: (await store.recentDeliveries(hook.id, limit)).map(deliveryView) })
      },
    },
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path: '/webhooks/:id/deliveries/:delivery_id/redeliver',
      name: 'webhooks_redeliver',
      docs: { status: 202, response: deliveryAnswer, errors: [409] },
      async handle(ctx, project) {
        const hookId = (await ownWebhook(store, project.id, ctx.params.id!)).id
        const deliveryId = ctx.params.delivery_id!
        const original = await store.delivery(deliveryId)
        if (original === undefined || original.webhookId !== hookId) {
          throw new NotFoundError(`No delivery ${deliveryId} for webhook ${hookId}.`)
        }
        if (original.status === 'pending') throw new ConflictError(`Delivery ${deliveryId} is still pending; it will be attempted again on its schedule.`)
        const queued = await store.queue(project.id, hookId, original.event, clock.now(), original.test)
        if (queued === 'missing') throw webhookNotFound(hookId)
        if (queued === 'inactive') throw new ConflictError(`Webhook ${hookId} is inactive; set active to true before redelivering.`)
        deps.wakeWorker()
        return Reply.json(deliveryView(queued), 202)
      },
    },
  ]
}
