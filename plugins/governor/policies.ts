// The one writer of a project's Governor settings: its custom rules (policies) and its switches
// (enabled, strict mode, auto-approve and injection-block thresholds, governance). Settings are
// kept in the project record and written through the registry's updateProject (which bumps the settings version, so memoized
// verdicts and cache entries of the old settings are not reused). Used by the
// /api/compliance/policies routes, by the management API's PATCH /api/projects/:id (offered to it
// as the `policies` service) and by `tollgate governor`. A rule is checked before it is saved: a
// bad or unsafe regex is refused here, never dropped at request time.
import { ulid } from 'ulid'
import { z } from 'zod'
import { InvalidRequestError, NotFoundError } from '../../proxy/pipeline/errors.ts'
import { oneOf, validate } from '../../proxy/http/validate.ts'
import type { Project } from '../../proxy/pipeline/project.ts'
import type { CustomRule } from './state.ts'
import type { AuthRegistry } from '../auth/state.ts'
import { ID_PREFIXES } from './ids.ts'
import { ruleProblem } from './logic/verdict/custom-rules.ts'
import { MAX_PATTERN_CHARS } from './logic/verdict/safe-regex.ts'
import { SEVERITIES } from './logic/verdict/types.ts'

const MAX_RULES_PER_PROJECT = 100

export const ruleFields = {
  name: z.string({ error: 'name must be a string' }).trim().min(1, 'name must not be empty').max(100, 'name may hold at most 100 characters'),
  pattern: z
    .string({ error: 'pattern must be a string' })
    .min(1, 'pattern must not be empty')
    .max(MAX_PATTERN_CHARS, `pattern may hold at most ${MAX_PATTERN_CHARS} characters`),
  regex: z.boolean({ error: 'regex must be true or false' }),
  weight: z
    .number({ error: 'weight must be a number' })
    .int('weight must be a whole number')
    .min(0, 'weight must be between 0 and 100')
    .max(100, 'weight must be between 0 and 100'),
  severity: oneOf('severity', SEVERITIES),
}

export const newRuleSchema = z.strictObject({
  ...ruleFields,
  regex: ruleFields.regex.default(false),
  weight: ruleFields.weight.default(20),
  severity: ruleFields.severity.default('MEDIUM'),
})

export const ruleChangesSchema = z.strictObject({
  name: ruleFields.name.optional(),
  pattern: ruleFields.pattern.optional(),
  regex: ruleFields.regex.optional(),
  weight: ruleFields.weight.optional(),
  severity: ruleFields.severity.optional(),
})

const threshold = z
  .number({ error: 'autoApproveThreshold must be a number' })
  .min(0, 'autoApproveThreshold must be from 0 to 100')
  .max(100, 'autoApproveThreshold must be from 0 to 100')

/**
 * A change of Governor settings; `customRules`, when given, replaces the whole list (a rule
 * without an id is new). Each regex must pass the same safety check as a single policy.
 */
export const settingsChangesSchema = z.strictObject({
  enabled: z.boolean({ error: 'enabled must be true or false' }).optional(),
  strictMode: z.boolean({ error: 'strictMode must be true or false' }).optional(),
  redactOutput: z.boolean({ error: 'redactOutput must be true or false' }).optional(),
  autoApproveThreshold: threshold.optional(),
  injectionBlockThreshold: z
    .number({ error: 'injectionBlockThreshold must be a number' })
    .min(0, 'injectionBlockThreshold must be from 0 to 1')
    .max(1, 'injectionBlockThreshold must be from 0 to 1')
    .optional(),
  governance: z.enum(['metadata', 'all'], { error: 'governance must be metadata or all' }).optional(),
  customRules: z
    .array(newRuleSchema.extend({ id: z.string().min(1).max(64).optional() }), { error: 'customRules must be a list of rules' })
    .max(MAX_RULES_PER_PROJECT, `a project holds at most ${MAX_RULES_PER_PROJECT} custom rules`)
    .superRefine((rules, ctx) => {
      const ids = new Set<string>()
      rules.forEach((rule, index) => {
        const problem = ruleProblem(rule)
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [index, 'pattern'], message: `pattern: ${problem}` })
        if (rule.id !== undefined && ids.has(rule.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `id: ${rule.id} is given twice` })
        if (rule.id !== undefined) ids.add(rule.id)
      })
    })
    .optional(),
})

export type NewRule = z.output<typeof newRuleSchema>
type RuleChanges = z.output<typeof ruleChangesSchema>
type SettingsChanges = z.output<typeof settingsChangesSchema>

/** The part of the registry that policies need. */
export type ProjectSettings = Pick<AuthRegistry, 'getProject' | 'updateProject'>

export function createPolicies(registry: ProjectSettings) {
  // Changes to one project's rules are applied one after another in this process, so two edits
  // made at once do not overwrite each other.
  const queues = new Map<string, Promise<unknown>>()
  function serialized<T>(projectId: string, work: () => Promise<T>): Promise<T> {
    const run = (queues.get(projectId) ?? Promise.resolve()).then(work, work)
    const settled = run.catch(() => undefined)
    queues.set(projectId, settled)
    void settled.then(() => {
      if (queues.get(projectId) === settled) queues.delete(projectId)
    })
    return run
  }

  const projectOf = (projectId: string): Project => {
    const project = registry.getProject(projectId)
    if (project === undefined) throw new NotFoundError(`No project ${projectId}.`)
    return project
  }
  const ruleOf = (project: Project, ruleId: string): CustomRule => {
    const rule = project.governor.customRules.find((r) => r.id === ruleId)
    if (rule === undefined) throw new NotFoundError(`No policy ${ruleId} in this project.`)
    return rule
  }
  const save = async (projectId: string, rules: readonly CustomRule[]) => {
    await registry.updateProject(projectId, { governor: { customRules: rules } })
  }

  return {
    /** Applies a checked change of settings (validate it with settingsChangesSchema first); the updated project. */
    updateSettings(projectId: string, changes: SettingsChanges): Promise<Project> {
      return serialized(projectId, async () => {
        projectOf(projectId)
        const { customRules, ...switches } = validate(settingsChangesSchema, changes, 'Governor settings')
        const rules = customRules?.map((rule): CustomRule => ({ ...rule, id: rule.id ?? `${ID_PREFIXES.rule}${ulid().toLowerCase()}` }))
        return registry.updateProject(projectId, { governor: { ...definedOnly(switches), ...(rules === undefined ? {} : { customRules: rules }) } })
      })
    },
    list: (projectId: string): readonly CustomRule[] => projectOf(projectId).governor.customRules,
    get: (projectId: string, ruleId: string): CustomRule => ruleOf(projectOf(projectId), ruleId),
    create(projectId: string, input: NewRule): Promise<CustomRule> {
      return serialized(projectId, async () => {
        const rules = projectOf(projectId).governor.customRules
        if (rules.length >= MAX_RULES_PER_PROJECT) {
          throw new InvalidRequestError('Invalid request: too many policies', `A project holds at most ${MAX_RULES_PER_PROJECT} policies; remove one first.`)
        }
        const rule: CustomRule = { id: `${ID_PREFIXES.rule}${ulid().toLowerCase()}`, ...input }
        assertSavable(rule)
        await save(projectId, [...rules, rule])
        return rule
      })
    },
    update(projectId: string, ruleId: string, changes: RuleChanges): Promise<CustomRule> {
      return serialized(projectId, async () => {
        const project = projectOf(projectId)
        const current = ruleOf(project, ruleId)
        const rule: CustomRule = {
          id: current.id,
          name: changes.name ?? current.name,
          pattern: changes.pattern ?? current.pattern,
          regex: changes.regex ?? current.regex,
          weight: changes.weight ?? current.weight,
          severity: changes.severity ?? current.severity,
        }
        assertSavable(rule)
        await save(
          projectId,
          project.governor.customRules.map((r) => (r.id === ruleId ? rule : r)),
        )
        return rule
      })
    },
    remove(projectId: string, ruleId: string): Promise<CustomRule> {
      return serialized(projectId, async () => {
        const project = projectOf(projectId)
        const rule = ruleOf(project, ruleId)
        await save(
          projectId,
          project.governor.customRules.filter((r) => r.id !== ruleId),
        )
        return rule
      })
    },
  }
}

export type Policies = ReturnType<typeof createPolicies>

/** zod types optional fields as possibly undefined; the registry's changes may not hold undefined. */
function definedOnly<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> }
}

/** A 400 naming why a rule cannot be saved, when it cannot. */
export function assertSavable(rule: Pick<CustomRule, 'pattern' | 'regex'>): void {
  const problem = ruleProblem(rule)
  if (problem === undefined) return
  throw new InvalidRequestError(`Invalid request: pattern: ${problem}`, `The policy cannot be saved: ${problem}.`, [{ path: 'pattern', message: problem }])
}
