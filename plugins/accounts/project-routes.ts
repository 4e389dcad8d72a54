// The organization's projects, through the auth plugin's registry (the one the request path and
// the CLI use). Another organization's project answers 404, exactly like a missing one.
import { ulid } from 'ulid'
import { z } from 'zod'
import { NotFoundError } from '../../proxy/errors.ts'
import type { RouteSpec } from '../../proxy/plugin.ts'
import { PLANS, type Project } from '../../proxy/project.ts'
import { Reply } from '../../proxy/reply.ts'
import type { ProjectChanges } from '../auth/registry.ts'
import type { Member } from './bearer.ts'
import { actorOf, memberRoute } from './member-route.ts'
import { requireRole } from './roles.ts'
import type { AccountServices } from './services.ts'

const MAX_BUDGET_DOLLARS = 1_000_000_000
const MAX_CACHE_TTL_SECONDS = 30 * 24 * 3600

const name = z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200, 'name must hold at most 200 characters')
const plan = z.enum(PLANS, { error: `plan must be one of ${PLANS.join(', ')}` })
const budgetDollars = z.number({ error: 'budgetDollars must be a number' }).nonnegative('budgetDollars must not be negative').max(MAX_BUDGET_DOLLARS, 'budgetDollars is too large')

function compiles(source: string): boolean {
  try {
    new RegExp(source, 'i')
    return true
  } catch {
    return false
  }
}

const customRule = z.strictObject({
  id: z.string().min(1).max(64).optional(),
  name: z.string({ error: 'a rule needs a name' }).min(1).max(200),
  pattern: z.string({ error: 'a rule needs a pattern' }).min(1).max(500),
  regex: z.boolean().default(false),
  weight: z.number({ error: 'weight must be a number' }).min(0, 'weight must be from 0 to 100').max(100, 'weight must be from 0 to 100'),
  severity: z.enum(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'], { error: 'severity must be LOW, MEDIUM, HIGH or CRITICAL' }),
}).refine((rule) => !rule.regex || compiles(rule.pattern), { message: 'pattern is not a valid regular expression', path: ['pattern'] })

const createBody = z.strictObject({ name, plan: plan.default('free'), budgetDollars: budgetDollars.default(10) })

const updateBody = z.strictObject({
  name: name.optional(),
  plan: plan.optional(),
  budgetDollars: budgetDollars.optional(),
  cacheTtlSeconds: z.number({ error: 'cacheTtlSeconds must be a number' }).int('cacheTtlSeconds must be a whole number')
    .min(0, 'cacheTtlSeconds must not be negative').max(MAX_CACHE_TTL_SECONDS, 'cacheTtlSeconds may be at most 30 days').optional(),
  cacheEnabled: z.boolean({ error: 'cacheEnabled must be true or false' }).optional(),
  governor: z.strictObject({
    enabled: z.boolean({ error: 'governor.enabled must be true or false' }).optional(),
    strictMode: z.boolean({ error: 'governor.strictMode must be true or false' }).optional(),
    redactOutput: z.boolean({ error: 'governor.redactOutput must be true or false' }).optional(),
    autoApproveThreshold: z.number({ error: 'autoApproveThreshold must be a number' }).min(0, 'autoApproveThreshold must be from 0 to 100').max(100, 'autoApproveThreshold must be from 0 to 100').optional(),
    customRules: z.array(customRule).max(100, 'at most 100 custom rules').optional(),
  }).optional(),
}).refine((changes) => Object.keys(changes).length > 0, { message: 'give at least one field to change' })

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

function toChanges(body: z.output<typeof updateBody>): ProjectChanges {
  const { governor, ...rest } = body
  if (governor === undefined) return definedOnly(rest)
  const { customRules, ...settings } = governor
  const rules = customRules?.map((rule) => ({ ...rule, id: rule.id ?? `rule_${ulid().toLowerCase()}` }))
  return { ...definedOnly(rest), governor: { ...definedOnly(settings), ...(rules === undefined ? {} : { customRules: rules }) } }
}

export function projectRoutes(services: AccountServices): RouteSpec[] {
  const { registry, audit } = services
  return [
    memberRoute(services, {
      method: 'POST', path: '/api/projects', name: 'projects_create', body: createBody,
      async handle(_ctx, member, body) {
        requireRole(member.role, 'admin')
        const project = await registry.createProject({ organizationId: member.organization.id, ...body })
        await audit.record(member.organization.id, {
          actor: actorOf(member), action: 'project.create', target: { type: 'project', id: project.id },
          details: { name: project.name, plan: project.plan, budgetDollars: project.budgetDollars },
        })
        return Reply.json(project, 201)
      },
    }),
    memberRoute(services, {
      method: 'GET', path: '/api/projects', name: 'projects_list',
      async handle(_ctx, member) {
        return Reply.json({ projects: registry.listProjects().filter((p) => p.organizationId === member.organization.id) })
      },
    }),
    memberRoute(services, {
      method: 'GET', path: '/api/projects/:id', name: 'project_get',
      async handle(ctx, member) {
        return Reply.json(ownProject(services, member, ctx.params.id!))
      },
    }),
    memberRoute(services, {
      method: 'PATCH', path: '/api/projects/:id', name: 'project_update', body: updateBody,
      async handle(ctx, member, body) {
        const id = ownProject(services, member, ctx.params.id!).id
        requireRole(member.role, 'admin')
        const project = await registry.updateProject(id, toChanges(body))
        await audit.record(member.organization.id, {
          actor: actorOf(member), action: 'project.update', target: { type: 'project', id },
          details: { fields: Object.keys(body) },
        })
        return Reply.json(project)
      },
    }),
  ]
}
