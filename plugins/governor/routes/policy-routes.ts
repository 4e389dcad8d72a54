// /api/compliance/policies: the project's custom rules, through the shared policies service.
import { z } from 'zod'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { Policies } from '../policies.ts'
import { newRuleSchema, ruleChangesSchema } from '../policies.ts'
import { decodeCursor, encodeCursor } from '../store/page.ts'
import { SEVERITIES } from '../logic/verdict/types.ts'
import { pageOf, ruleAnswer } from './answers.ts'
import { editableRoutes, pageFields, parseQuery, PROJECT_KEYS } from './list-query.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const listQuery = z.strictObject({
  limit: pageFields.limit,
  cursor: pageFields.cursor,
  type: z.enum(['keyword', 'regex'], { error: 'type must be keyword or regex' }).optional(),
  severity: oneOf('severity', SEVERITIES).optional(),
})

const changesBody = ruleChangesSchema.refine((body) => Object.values(body).some((value) => value !== undefined), {
  error: 'send at least one of name, pattern, regex, weight, severity',
})

export function policyRoutes(policies: Policies): ProjectRouteSpec[] {
  return [
    {
      keyTypes: PROJECT_KEYS,
      writes: false,
      method: 'GET',
      path: '/compliance/policies',
      name: 'compliance_policies',
      docs: { query: listQuery, response: pageOf(ruleAnswer) },
      handle(ctx, project) {
        const query = parseQuery(listQuery, ctx)
        const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'rule')
        // Rules are kept in the order they were added, which is also the order of their ids.
        const matching = policies
          .list(project.id)
          .filter(
            (rule) =>
              (after === undefined || rule.id > after) &&
              (query.type === undefined || rule.regex === (query.type === 'regex')) &&
              (query.severity === undefined || rule.severity === query.severity),
          )
        const data = matching.slice(0, query.limit)
        return Reply.json({ data, nextCursor: matching.length > query.limit ? encodeCursor(data.at(-1)!.id) : null })
      },
    },
    ...editableRoutes('/compliance/policies', 'compliance_policy', policies, { create: newRuleSchema, update: changesBody, item: ruleAnswer }),
  ]
}
