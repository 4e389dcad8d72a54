// `tollgate projects …` and `tollgate keys …`: the operator's view of the same registry the
// gateway reads, opened on the same store (cli/registry.ts).
import { z } from 'zod'
import type { KeyEnv, KeyType } from '../proxy/pipeline/context.ts'
import { PLANS, type Plan } from '../proxy/pipeline/project.ts'
import type { Organization } from '../plugins/accounts/store/organizations.ts'
import type { KeyLimitChanges, KeyLimits, ProjectChanges } from '../plugins/auth/store/registry.ts'
import { printJson, printTable, UsageError } from './output.ts'
import { withRegistry, type CliStore, type OrganizationLookup } from './registry.ts'

export interface AdminOptions extends CliStore {
  readonly json: boolean
  readonly flags: Readonly<Record<string, string | undefined>>
  readonly args: readonly string[]
}

const planSchema = z.enum(PLANS, { error: `--plan must be one of ${PLANS.join(', ')}` })
const budgetSchema = z.coerce.number({ error: '--budget must be a number of dollars' }).nonnegative('--budget must not be negative')
const rpmSchema = z.coerce
  .number({ error: '--rpm must be a whole number of requests per minute' })
  .int('--rpm must be a whole number of requests per minute')
  .positive('--rpm must be at least 1')
  .max(1_000_000, '--rpm must be at most 1000000')

/** A new key's own limits, from --budget and --rpm. */
function keyLimitsOf(options: AdminOptions): KeyLimits {
  const { budget, rpm } = options.flags
  return {
    ...(budget === undefined ? {} : { budgetDollars: parse(budgetSchema, budget) }),
    ...(rpm === undefined ? {} : { rpm: parse(rpmSchema, rpm) }),
  }
}

/** keys update's --budget and --rpm: a value sets one, `none` removes it. */
function keyLimitChangesOf(options: AdminOptions): KeyLimitChanges {
  const { budget, rpm } = options.flags
  return {
    ...(budget === undefined ? {} : { budgetDollars: budget === 'none' ? null : parse(budgetSchema, budget) }),
    ...(rpm === undefined ? {} : { rpm: rpm === 'none' ? null : parse(rpmSchema, rpm) }),
  }
}

const limitsText = (key: { budgetDollars?: number; rpm?: number }) =>
  [key.budgetDollars === undefined ? '' : `budget $${key.budgetDollars}/month`, key.rpm === undefined ? '' : `${key.rpm} requests/minute`]
    .filter((s) => s !== '')
    .join(', ')

function required(options: AdminOptions, flag: string): string {
  const value = options.flags[flag]
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`)
  return value
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value)
  if (!result.success) throw new UsageError(result.error.issues[0]!.message)
  return result.data
}

/**
 * The organization --org names, which must exist: a project attached to an id no one signs in to
 * would vanish from every dashboard.
 */
async function organizationOf(organizations: OrganizationLookup, id: string): Promise<Organization> {
  const organization = await organizations.get(id)
  if (organization === undefined) throw new UsageError(`no organization with id ${id}; tollgate orgs list shows them`)
  return organization
}

export function runProjects(sub: string | undefined, options: AdminOptions): Promise<void> {
  return withRegistry(options, async (registry, organizations) => {
    switch (sub) {
      case 'create': {
        const org = options.flags.org === undefined ? undefined : await organizationOf(organizations, options.flags.org)
        const project = await registry.createProject({
          ...(org === undefined ? {} : { organizationId: org.id }),
          name: required(options, 'name'),
          plan: parse(planSchema, options.flags.plan ?? 'free'),
          budgetDollars: parse(budgetSchema, options.flags.budget ?? '10'),
        })
        if (options.json)
          printJson({ id: project.id, name: project.name, plan: project.plan, budget: project.budgetDollars, organization: project.organizationId ?? null })
        else
          process.stdout.write(
            `created project ${project.id} (${project.plan}, budget $${project.budgetDollars}/month${org === undefined ? '' : `, in ${org.name}`})\n`,
          )
        return
      }
      case 'attach': {
        const id = options.args[0]
        if (id === undefined) throw new UsageError('usage: tollgate projects attach ID --org ORG_ID')
        const org = await organizationOf(organizations, required(options, 'org'))
        const project = await registry.updateProject(id, { organizationId: org.id })
        if (options.json) printJson({ id: project.id, organization: org.id })
        else process.stdout.write(`attached project ${project.id} to ${org.name} (${org.id}): its members see it in the dashboard\n`)
        return
      }
      case 'list': {
        const projects = registry.listProjects().map((p) => ({
          id: p.id,
          name: p.name,
          plan: p.plan,
          budget: p.budgetDollars,
          organization: p.organizationId ?? null,
          created: p.createdAt,
        }))
        if (options.json) printJson(projects)
        else printTable(projects, ['id', 'name', 'plan', 'budget', 'organization', 'created'])
        return
      }
      case 'update': {
        const id = options.args[0]
        if (id === undefined) throw new UsageError('usage: tollgate projects update ID [--plan PLAN] [--budget DOLLARS] [--name NAME]')
        const changes: { -readonly [K in keyof ProjectChanges]: ProjectChanges[K] } = {}
        if (options.flags.plan !== undefined) changes.plan = parse(planSchema, options.flags.plan) as Plan
        if (options.flags.budget !== undefined) changes.budgetDollars = parse(budgetSchema, options.flags.budget)
        if (options.flags.name !== undefined) changes.name = options.flags.name
        const project = await registry.updateProject(id, changes)
        if (options.json) printJson({ id: project.id, name: project.name, plan: project.plan, budget: project.budgetDollars })
        else process.stdout.write(`updated project ${project.id} (${project.plan}, budget $${project.budgetDollars}/month)\n`)
        return
      }
      default:
        throw new UsageError('usage: tollgate projects create|list|update|attach')
    }
  })
}

export function runOrganizations(sub: string | undefined, options: AdminOptions): Promise<void> {
  return withRegistry(options, async (registry, organizations) => {
    if (sub !== 'list') throw new UsageError('usage: tollgate orgs list')
    const projects = registry.listProjects()
    const rows = (await organizations.list()).map((org) => ({
      id: org.id,
      name: org.name,
      projects: projects.filter((p) => p.organizationId === org.id).length,
      created: org.createdAt,
    }))
    if (options.json) printJson(rows)
    else printTable(rows, ['id', 'name', 'projects', 'created'])
  })
}

export function runKeys(sub: string | undefined, options: AdminOptions): Promise<void> {
  return withRegistry(options, async (registry) => {
    switch (sub) {
      case 'create': {
        const type = parse(z.enum(['sk', 'pk'], { error: '--type must be sk or pk' }), required(options, 'type')) as KeyType
        const env =
          options.flags.env === undefined
            ? null
            : (parse(z.enum(['dev', 'stg', 'prod'], { error: '--env must be dev, stg or prod' }), options.flags.env) as KeyEnv)
        const limits = keyLimitsOf(options)
        const { record, key } = await registry.createKey({ projectId: required(options, 'project'), type, env, name: required(options, 'name'), ...limits })
        if (options.json) printJson({ id: record.id, key, prefix: record.prefix, ...limits })
        else
          process.stdout.write(
            `created key ${record.id} (${[record.prefix, limitsText(record)].filter((s) => s !== '').join(', ')})\n${key}\nThis is the only time the full key is shown; store it now.\n`,
          )
        return
      }
      case 'update': {
        const id = options.args[0]
        if (id === undefined) throw new UsageError('usage: tollgate keys update KEY_ID [--budget DOLLARS|none] [--rpm N|none]')
        const record = await registry.setKeyLimits(id, keyLimitChangesOf(options))
        if (options.json) printJson({ id: record.id, budgetDollars: record.budgetDollars ?? null, rpm: record.rpm ?? null })
        else process.stdout.write(`updated key ${record.id} (${limitsText(record) || 'no limits of its own'})\n`)
        return
      }
      case 'list': {
        const keys = registry.listKeys(required(options, 'project')).map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.prefix,
          type: k.type,
          env: k.env,
          status: k.status,
          budget: k.budgetDollars ?? null,
          rpm: k.rpm ?? null,
          created: k.createdAt,
          lastUsed: k.lastUsedAt,
        }))
        if (options.json) printJson(keys)
        else printTable(keys, ['id', 'name', 'prefix', 'type', 'env', 'status', 'budget', 'rpm', 'created', 'lastUsed'])
        return
      }
      case 'deactivate':
      case 'reactivate':
      case 'delete': {
        const id = options.args[0]
        if (id === undefined) throw new UsageError(`usage: tollgate keys ${sub} KEY_ID`)
        if (sub === 'delete') await registry.deleteKey(id)
        else await registry.setKeyStatus(id, sub === 'deactivate' ? 'inactive' : 'active')
        const status = sub === 'delete' ? 'deleted' : sub === 'deactivate' ? 'inactive' : 'active'
        if (options.json) printJson({ id, status })
        else process.stdout.write(`key ${id} is ${status}\n`)
        return
      }
      default:
        throw new UsageError('usage: tollgate keys create|list|update|deactivate|reactivate|delete')
    }
  })
}
