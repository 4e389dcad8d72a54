// POST /api/webhooks/test: sends a test event of the asked kind (data {test: true}) to one webhook
// now, inside the request, and answers with the attempt's outcome. A test delivery is attempted
// once, is listed with the webhook's deliveries, and never counts toward disabling the webhook.
import { z } from 'zod'
import { OverloadedError } from '../../../proxy/pipeline/errors.ts'
import type { GatewayEvent } from '../../../proxy/stores/events/index.ts'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { testWebhookBody, type TestWebhookBody } from './bodies.ts'
import { ownWebhook, webhookNotFound, type RouteDeps } from './route-deps.ts'
import { deliveryAnswer, deliveryView } from './views.ts'

export function testRoute(deps: RouteDeps): ProjectRouteSpec {
  const { store, clock } = deps
  return {
    keyTypes: ['sk', 'pk'],
    writes: true,
    method: 'POST',
    path: '/webhooks/test',
    name: 'webhooks_test',
    body: testWebhookBody,
    docs: { response: z.object({ success: z.boolean(), duration_ms: z.number().int(), delivery: deliveryAnswer }), errors: [404] },
    async handle(ctx, project) {
      const body = ctx.body as TestWebhookBody
      await ownWebhook(store, project.id, body.webhook_id)
      const now = clock.now()
      const event: GatewayEvent = {
        id: deps.newId('evt_'),
        type: body.event_type,
        timestamp: new Date(now).toISOString(),
        project_id: project.id,
        data: { test: true },
      }
      const claim = await store.queueClaimed(project.id, body.webhook_id, event, now, deps.timeoutMs)
      if (claim === undefined) throw webhookNotFound(body.webhook_id)
      const outcome = await deps.runAttempt(claim)
      if (outcome === undefined) throw new OverloadedError('The gateway is stopping; the test event will be sent once it is back.')
      return Reply.json({ success: outcome.result.ok, duration_ms: Math.round(outcome.result.durationMs), delivery: deliveryView(outcome.record) })
    },
  }
}
