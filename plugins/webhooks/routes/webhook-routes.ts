// Registration: POST/GET /api/webhooks, PATCH/DELETE /api/webhooks/{id}, for sk_ and pk_ keys
// of the webhook's own project and its organization's members (project routes).
import { z } from 'zod'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { createWebhookBody, updateWebhookBody, type CreateWebhookBody, type UpdateWebhookBody } from './bodies.ts'
import { ownWebhook, webhookNotFound, type RouteDeps } from './route-deps.ts'
import { checkTargetUrl } from './target-check.ts'
import { webhookAnswer, webhookView } from './views.ts'

const keyTypes = ['sk', 'pk'] as const

export function webhookRoutes(deps: RouteDeps): ProjectRouteSpec[] {
  const { store } = deps
  return [
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path: '/webhooks',
      name: 'webhooks_create',
      body: createWebhookBody,
      docs: { status: 201, response: webhookAnswer },
      async handle(ctx, project) {
        const body = ctx.body as CreateWebhookBody
        const url = await checkTargetUrl(body.url, deps.targetPolicy)
        const record = await store.createWebhook({ projectId: project.id, url, events: body.events, secret: body.secret })
        return Reply.json(webhookView(record), 201)
      },
    },
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/webhooks',
      name: 'webhooks_list',
      docs: { response: z.object({ webhooks: z.array(webhookAnswer) }) },
      handle: async (_ctx, project) => Reply.json({ webhooks: (await store.webhooks(project.id)).map(webhookView) }),
    },
    {
      keyTypes,
      writes: true,
      method: 'PATCH',
      path: '/webhooks/:id',
      name: 'webhooks_update',
      body: updateWebhookBody,
      docs: { response: webhookAnswer },
      async handle(ctx, project) {
        const id = ctx.params.id!
        await ownWebhook(store, project.id, id)
        const changes = ctx.body as UpdateWebhookBody
        const url = changes.url === undefined ? undefined : await checkTargetUrl(changes.url, deps.targetPolicy)
        const updated = await store.updateWebhook(project.id, id, { ...changes, url })
        if (updated === undefined) throw webhookNotFound(id)
        return Reply.json(webhookView(updated))
      },
    },
    {
      keyTypes,
      writes: true,
      method: 'DELETE',
      path: '/webhooks/:id',
      name: 'webhooks_delete',
      docs: { response: z.object({ id: z.string(), deleted: z.literal(true) }) },
      async handle(ctx, project) {
        const id = ctx.params.id!
        if (!(await store.removeWebhook(project.id, id))) throw webhookNotFound(id)
        return Reply.json({ id, deleted: true })
      },
    },
  ]
}
