// The organization's projects, through the auth plugin's registry (the one the request path and
// the CLI use). Another organization's project answers 404, exactly like a missing one.
import { z } from 'zod'
import { InvalidRequestError, NotFoundError } from '../../../proxy/pipeline/errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { PLANS, type Project } from '../../../proxy/pipeline/project.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { ProjectChanges } from '../../auth/state.ts'
import { settingsChangesSchema } from '../../governor/state.ts'
import type { Member } from '../logic/member.ts'
import { actorOf, memberRoute } from './member-route.ts'
import { requireRole } from '../logic/roles.ts'
import type { AccountServices } from '../services.ts'
import { projectAnswer } from './answers.ts'
import { nameField } from './fields.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const MAX_BUDGET_DOLLARS = 1_000_000_000
const MAX_CACHE_TTL_SECONDS = 30 * 24 * 3600

const name = nameField('name')
const plan = oneOf('plan', PLANS)
const budgetDollars = z
  .number({ error: 'budgetDollars must be a number' })
  .nonnegative('budgetDollars must not be negative')
  .max(MAX_BUDGET_DOLLARS, 'budgetDollars is too large')

const createBody = z.strictObject({ name, plan: plan.default('free'), budgetDollars: budgetDollars.default(10) })

const updateBody = z
  .strictObject({
    name: name.optional(),
    plan: plan.optional(),
    budgetDollars: budgetDollars.optional(),
    cacheTtlSeconds: z
      .number({ error: 'cacheTtlSeconds must be a number' })
      .int('cacheTtlSeconds must be a whole number')
      .min(0, 'cacheTtlSeconds must not be negative')
      .max(MAX_CACHE_TTL_SECONDS, 'cacheTtlSeconds may be at most 30 days')
      .optional(),
    cacheEnabled: z.boolean({ error: 'cacheEnabled must be true or false' }).optional(),
    cacheSampled: z.boolean({ error: 'cacheSampled must be true or false' }).optional(),
    // The Governor's own schema: the same checks (a regex's safety among them) as its policies routes.
    governor: settingsChangesSchema.optional(),
  })
  .refine((changes) => Object.keys(changes).length > 0, { message: 'give at least one field to change' })

/** The project, if it belongs to the member's organization. */
export function ownProject(services: AccountServices, member: Member, id: string): Project {
  const project = services.registry.getProject(id)
  if (project === undefined || project.organizationId !== member.organization.id) throw new NotFoundError(`No project ${id} in this organization.`)
  return project
}

type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> }

/** zod's optional fields may be typed undefined; the registry's changes may not. */
function definedOnly<T extends object>(value: T): Defined<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Defined<T>
}

export function projectRoutes(services: AccountServices): RouteSpec[] {
  const { registry, audit, policies } = services
  return [
    memberRoute(services, {
      method: 'POST',
      path: '/api/projects',
      name: 'projects_create',
      body: createBody,
      docs: { status: 201, response: projectAnswer },
      async handle(_ctx, member, body) {
        requireRole(member.role, 'admin')
        const project = await registry.createProject({ organizationId: member.organization.id, ...body })
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: 'project.create',
          target: { type: 'project', id: project.id },
          details: { name: project.name, plan: project.plan, budgetDollars: project.budgetDollars },
        })
        return Reply.json(project, 201)
      },
    }),
    memberRoute(services, {
      method: 'GET',
      path: '/api/projects',
      name: 'projects_list',
      docs: { response: z.object({ projects: z.array(projectAnswer) }) },
      async handle(_ctx, member) {
        return Reply.json({ projects: registry.listProjects().filter((p) => p.organizationId === member.organization.id) })
      },
    }),
    memberRoute(services, {
      method: 'GET',
      path: '/api/projects/:id',
      name: 'project_get',
      docs: { response: projectAnswer },
      async handle(ctx, member) {
        return Reply.json(ownProject(services, member, ctx.params.id!))
      },
    }),
    memberRoute(services, {
      method: 'PATCH',
      path: '/api/projects/:id',
      name: 'project_update',
      body: updateBody,
      docs: { response: projectAnswer },
      async handle(ctx, member, body) {
        const id = ownProject(services, member, ctx.params.id!).id
        requireRole(member.role, 'admin')
        const { governor, ...rest } = body
        // Governor settings go through the Governor's own writer, which checks them as its
        // policies routes do; the other fields through the registry.
        if (governor !== undefined) {
          if (policies === undefined) {
            throw new InvalidRequestError(
              'Invalid request: governor: this gateway runs without the Governor',
              'Governor settings cannot be changed: the Governor plugin is not installed.',
              [{ path: 'governor', message: 'the Governor plugin is not installed' }],
            )
          }
          await policies.updateSettings(id, governor)
        }
        const others: ProjectChanges = definedOnly(rest)
        const project = Object.keys(others).length > 0 ? await registry.updateProject(id, others) : ownProject(services, member, id)
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: 'project.update',
          target: { type: 'project', id },
          details: { fields: Object.keys(body) },
        })
        return Reply.json(project)
      },
    }),
  ]
}
