// API keys of the organization's projects: the spec's key lifecycle (create, deactivate,
// reactivate, delete) over HTTP, through the auth plugin's registry. The full key is in the
// creation answer only; lists show the prefix.
import { z } from 'zod'
import { NotFoundError } from '../../../proxy/pipeline/errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { RegistryError, type KeyView } from '../../auth/state.ts'
import type { Member } from '../logic/member.ts'
import { actorOf, memberRoute } from './member-route.ts'
import { ownProject } from './project-routes.ts'
import { requireRole } from '../logic/roles.ts'
import type { AccountServices } from '../services.ts'
import { createdKeyAnswer, deletedAnswer, keyAnswer } from './answers.ts'
import { nameField } from './fields.ts'

const budgetDollars = z
  .number({ error: 'budgetDollars must be a number of dollars' })
  .nonnegative('budgetDollars must not be negative')
  .max(1_000_000_000, 'budgetDollars must be at most 1000000000')
const rpm = z
  .number({ error: 'rpm must be a whole number' })
  .int('rpm must be a whole number')
  .positive('rpm must be at least 1')
  .max(1_000_000, 'rpm must be at most 1000000')

const createBody = z.strictObject({
  name: nameField('name'),
  type: z.enum(['sk', 'pk'], { error: 'type must be sk or pk' }).default('sk'),
  env: z.enum(['dev', 'stg', 'prod'], { error: 'env must be dev, stg or prod' }).nullable().default(null),
  budgetDollars: budgetDollars.optional(),
  rpm: rpm.optional(),
})

/** null removes a limit, absent leaves it. */
const limitsBody = z.strictObject({ budgetDollars: budgetDollars.nullable().optional(), rpm: rpm.nullable().optional() })

export function keyRoutes(services: AccountServices): RouteSpec[] {
  const { registry, audit } = services

  function ownKey(member: Member, id: string): KeyView {
    const key = registry.getKey(id)
    const project = key === undefined ? undefined : registry.getProject(key.projectId)
    if (key === undefined || project?.organizationId !== member.organization.id) throw new NotFoundError(`No key ${id} in this organization.`)
    return key
  }

  /** A key deleted by a concurrent request is as missing as one that never existed. */
  async function onKey<T>(id: string, change: Promise<T>): Promise<T> {
    try {
      return await change
    } catch (err) {
      throw err instanceof RegistryError ? new NotFoundError(`No key ${id} in this organization.`) : err
    }
  }

  const statusRoute = (action: 'deactivate' | 'reactivate') =>
    memberRoute(services, {
      method: 'POST',
      path: `/api/keys/:id/${action}`,
      name: `key_${action}`,
      docs: { response: keyAnswer },
      async handle(ctx, member) {
        const key = ownKey(member, ctx.params.id!)
        requireRole(member.role, 'admin')
        const updated = await onKey(key.id, registry.setKeyStatus(key.id, action === 'deactivate' ? 'inactive' : 'active'))
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: `key.${action}`,
          target: { type: 'key', id: key.id },
          details: { projectId: key.projectId, prefix: key.prefix },
        })
        return Reply.json(updated)
      },
    })

  return [
    memberRoute(services, {
      method: 'POST',
      path: '/api/projects/:id/keys',
      name: 'keys_create',
      body: createBody,
      docs: { status: 201, response: createdKeyAnswer },
      async handle(ctx, member, body) {
        const project = ownProject(services, member, ctx.params.id!)
        requireRole(member.role, 'admin')
        const { record, key } = await registry.createKey({
          projectId: project.id,
          name: body.name,
          type: body.type,
          env: body.env,
          ...(body.budgetDollars === undefined ? {} : { budgetDollars: body.budgetDollars }),
          ...(body.rpm === undefined ? {} : { rpm: body.rpm }),
        })
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: 'key.create',
          target: { type: 'key', id: record.id },
          details: { projectId: project.id, name: record.name, prefix: record.prefix, type: record.type, env: record.env },
        })
        return Reply.json({ ...record, key }, 201)
      },
    }),
    memberRoute(services, {
      method: 'GET',
      path: '/api/projects/:id/keys',
      name: 'keys_list',
      docs: { response: z.object({ keys: z.array(keyAnswer) }) },
      async handle(ctx, member) {
        return Reply.json({ keys: registry.listKeys(ownProject(services, member, ctx.params.id!).id) })
      },
    }),
    memberRoute(services, {
      method: 'PATCH',
      path: '/api/keys/:id',
      name: 'key_update',
      body: limitsBody,
      docs: { response: keyAnswer },
      async handle(ctx, member, body) {
        const key = ownKey(member, ctx.params.id!)
        requireRole(member.role, 'admin')
        const changes = {
          ...(body.budgetDollars === undefined ? {} : { budgetDollars: body.budgetDollars }),
          ...(body.rpm === undefined ? {} : { rpm: body.rpm }),
        }
        const updated = await onKey(key.id, registry.setKeyLimits(key.id, changes))
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: 'key.update',
          target: { type: 'key', id: key.id },
          details: { projectId: key.projectId, prefix: key.prefix, ...changes },
        })
        return Reply.json(updated)
      },
    }),
    statusRoute('deactivate'),
    statusRoute('reactivate'),
    memberRoute(services, {
      method: 'DELETE',
      path: '/api/keys/:id',
      name: 'key_delete',
      docs: { response: deletedAnswer },
      async handle(ctx, member) {
        const key = ownKey(member, ctx.params.id!)
        requireRole(member.role, 'admin')
        await onKey(key.id, registry.deleteKey(key.id))
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: 'key.delete',
          target: { type: 'key', id: key.id },
          details: { projectId: key.projectId, prefix: key.prefix },
        })
        return Reply.json({ id: key.id, deleted: true })
      },
    }),
  ]
}
