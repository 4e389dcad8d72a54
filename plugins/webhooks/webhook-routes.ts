// Registration: POST/GET /api/webhooks, PATCH/DELETE /api/webhooks/{id}, for sk_ and pk_ keys
// of the webhook's own project.
import type { RouteSpec } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import { createWebhookBody, updateWebhookBody, type CreateWebhookBody, type UpdateWebhookBody } from './bodies.ts'
import { ownWebhook, projectIdOf, webhookNotFound, type RouteDeps } from './route-deps.ts'
import { checkTargetUrl } from './target-check.ts'
import { webhookView } from './views.ts'

const keyed = { kind: 'keyed', keyTypes: ['sk', 'pk'] } as const

export function webhookRoutes(deps: RouteDeps): RouteSpec[] {
  const { store, hooks, deliveries } = deps
  return [
    {
      ...keyed, method: 'POST', path: '/api/webhooks', name: 'webhooks_create', body: createWebhookBody,
      async handle(ctx) {
        const body = ctx.body as CreateWebhookBody
        const url = await checkTargetUrl(body.url, deps.targetPolicy)
        const record = await store.transaction(() => hooks.create({ projectId: projectIdOf(ctx), url, events: body.events, secret: body.secret }))
        return Reply.json(webhookView(record), 201)
      },
    },
    {
      ...keyed, method: 'GET', path: '/api/webhooks', name: 'webhooks_list',
      handle: (ctx) => Reply.json({ webhooks: hooks.list(projectIdOf(ctx)).map(webhookView) }),
    },
    {
      ...keyed, method: 'PATCH', path: '/api/webhooks/:id', name: 'webhooks_update', body: updateWebhookBody,
      async handle(ctx) {
        const id = ctx.params.id!
        ownWebhook(hooks, ctx, id)
        const changes = ctx.body as UpdateWebhookBody
        const url = changes.url === undefined ? undefined : await checkTargetUrl(changes.url, deps.targetPolicy)
        const updated = await store.transaction(() => {
          const current = hooks.inProject(projectIdOf(ctx), id)
          return current === undefined ? undefined : hooks.update(current, { ...changes, url })
        })
        if (updated === undefined) throw webhookNotFound(id)
        return Reply.json(webhookView(updated))
      },
    },
    {
      ...keyed, method: 'DELETE', path: '/api/webhooks/:id', name: 'webhooks_delete',
      async handle(ctx) {
        const id = ctx.params.id!
        const removed = await store.transaction(() => {
          const current = hooks.inProject(projectIdOf(ctx), id)
          if (current === undefined) return false
          hooks.remove(current)
          deliveries.removeAllOf(id)
          return true
        })
        if (!removed) throw webhookNotFound(id)
        return Reply.json({ id, deleted: true })
      },
    },
  ]
}
