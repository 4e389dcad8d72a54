// /api/compliance/violations: list, read, resolve.
import { z } from 'zod'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { Violations } from '../store/records.ts'
import { SEVERITIES, VIOLATION_TYPES } from '../logic/verdict/types.ts'
import { pageOf, violationAnswer } from './answers.ts'
import { pageFields, pageQueryOf, parseQuery, PROJECT_KEYS } from './list-query.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const listQuery = z.strictObject({
  ...pageFields,
  status: z.enum(['open', 'resolved'], { error: 'status must be open or resolved' }).optional(),
  type: oneOf('type', VIOLATION_TYPES).optional(),
  severity: oneOf('severity', SEVERITIES).optional(),
})

export function violationRoutes(violations: Violations): ProjectRouteSpec[] {
  const keyTypes = PROJECT_KEYS
  return [
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/compliance/violations',
      name: 'compliance_violations',
      docs: { query: listQuery, response: pageOf(violationAnswer) },
      async handle(ctx, project) {
        const query = parseQuery(listQuery, ctx)
        return Reply.json(await violations.list(project.id, pageQueryOf(query, 'violation'), query))
      },
    },
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/compliance/violations/:id',
      name: 'compliance_violation',
      docs: { response: violationAnswer },
      handle: async (ctx, project) => Reply.json(await violations.get(project.id, ctx.params.id!)),
    },
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path: '/compliance/violations/:id/resolve',
      name: 'compliance_violation_resolve',
      docs: { response: violationAnswer, errors: [409] },
      handle: async (ctx, project) => Reply.json(await violations.resolve(project.id, ctx.params.id!)),
    },
  ]
}
