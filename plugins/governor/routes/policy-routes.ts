// /api/compliance/policies: the project's custom rules, through the shared policies service.
import { z } from 'zod'
import type { RouteSpec } from '../../../proxy/plugin.ts'
import { Reply } from '../../../proxy/reply.ts'
import type { NewRule, Policies, RuleChanges } from '../policies.ts'
import { newRuleSchema, ruleChangesSchema } from '../policies.ts'
import { decodeCursor, encodeCursor } from '../records/page.ts'
import { SEVERITIES } from '../verdict/types.ts'
import { pageFields, parseQuery, PROJECT_KEYS, projectIdOf } from './list-query.ts'

const listQuery = z.strictObject({
  limit: pageFields.limit,
  cursor: pageFields.cursor,
  type: z.enum(['keyword', 'regex'], { error: 'type must be keyword or regex' }).optional(),
  severity: z.enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` }).optional(),
})

const changesBody = ruleChangesSchema.refine((body) => Object.values(body).some((value) => value !== undefined), { error: 'send at least one of name, pattern, regex, weight, severity' })

export function policyRoutes(policies: Policies): RouteSpec[] {
  return [
    {
      method: 'GET', path: '/api/compliance/policies', name: 'compliance_policies', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle(ctx) {
        const query = parseQuery(listQuery, ctx)
        const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'rule')
        // Rules are kept in the order they were added, which is also the order of their ids.
        const matching = policies.list(projectIdOf(ctx)).filter((rule) =>
          (after === undefined || rule.id > after)
          && (query.type === undefined || rule.regex === (query.type === 'regex'))
          && (query.severity === undefined || rule.severity === query.severity))
        const data = matching.slice(0, query.limit)
        return Reply.json({ data, nextCursor: matching.length > query.limit ? encodeCursor(data.at(-1)!.id) : null })
      },
    },
    {
      method: 'POST', path: '/api/compliance/policies', name: 'compliance_policy_create', kind: 'keyed', keyTypes: PROJECT_KEYS, body: newRuleSchema,
      handle: async (ctx) => Reply.json(await policies.add(projectIdOf(ctx), ctx.body as NewRule), 201),
    },
    {
      method: 'GET', path: '/api/compliance/policies/:id', name: 'compliance_policy', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: (ctx) => Reply.json(policies.get(projectIdOf(ctx), ctx.params.id!)),
    },
    {
      method: 'PATCH', path: '/api/compliance/policies/:id', name: 'compliance_policy_update', kind: 'keyed', keyTypes: PROJECT_KEYS, body: changesBody,
      handle: async (ctx) => Reply.json(await policies.update(projectIdOf(ctx), ctx.params.id!, ctx.body as RuleChanges)),
    },
    {
      method: 'DELETE', path: '/api/compliance/policies/:id', name: 'compliance_policy_delete', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: async (ctx) => {
        const removed = await policies.remove(projectIdOf(ctx), ctx.params.id!)
        return Reply.json({ id: removed.id, deleted: true })
      },
    },
  ]
}
