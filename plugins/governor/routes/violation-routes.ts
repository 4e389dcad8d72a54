// /api/compliance/violations: list, read, resolve.
import { z } from 'zod'
import type { RouteSpec } from '../../../proxy/plugin.ts'
import { Reply } from '../../../proxy/reply.ts'
import type { Violations } from '../records/violations.ts'
import { SEVERITIES, VIOLATION_TYPES } from '../verdict/types.ts'
import { pageFields, pageQueryOf, parseQuery, PROJECT_KEYS, projectIdOf } from './list-query.ts'

const listQuery = z.strictObject({
  ...pageFields,
  status: z.enum(['open', 'resolved'], { error: 'status must be open or resolved' }).optional(),
  type: z.enum(VIOLATION_TYPES, { error: `type must be one of ${VIOLATION_TYPES.join(', ')}` }).optional(),
  severity: z.enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` }).optional(),
})

export function violationRoutes(violations: Violations): RouteSpec[] {
  return [
    {
      method: 'GET', path: '/api/compliance/violations', name: 'compliance_violations', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle(ctx) {
        const query = parseQuery(listQuery, ctx)
        return Reply.json(violations.list(projectIdOf(ctx), pageQueryOf(query, 'violation'), query))
      },
    },
    {
      method: 'GET', path: '/api/compliance/violations/:id', name: 'compliance_violation', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: (ctx) => Reply.json(violations.get(projectIdOf(ctx), ctx.params.id!)),
    },
    {
      method: 'POST', path: '/api/compliance/violations/:id/resolve', name: 'compliance_violation_resolve', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: async (ctx) => Reply.json(await violations.resolve(projectIdOf(ctx), ctx.params.id!)),
    },
  ]
}
