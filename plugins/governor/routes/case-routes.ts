// /api/compliance/cases: open a case from violations, list, read, change status or add a note,
// resolve.
import { z } from 'zod'
import type { RouteSpec } from '../../../proxy/plugin.ts'
import { Reply } from '../../../proxy/reply.ts'
import type { CaseChanges, Cases, NewCase } from '../records/cases.ts'
import { SEVERITIES } from '../verdict/types.ts'
import { pageFields, pageQueryOf, parseQuery, PROJECT_KEYS, projectIdOf } from './list-query.ts'

const CASE_STATUSES = ['open', 'investigating', 'resolved'] as const
const status = z.enum(CASE_STATUSES, { error: `status must be one of ${CASE_STATUSES.join(', ')}` })
const note = z.string({ error: 'note must be a string' }).trim().min(1, 'note must not be empty').max(4000, 'note may hold at most 4000 characters')

const newCaseBody = z.strictObject({
  title: z.string({ error: 'title is required' }).trim().min(1, 'title must not be empty').max(200, 'title may hold at most 200 characters'),
  violationIds: z.array(z.string().min(1).max(64), { error: 'violationIds must be an array of violation ids' })
    .min(1, 'violationIds must name at least one violation').max(100, 'violationIds may name at most 100 violations'),
  note: note.optional(),
})

const caseChangesBody = z.strictObject({ status: status.optional(), note: note.optional() })
  .refine((body) => body.status !== undefined || body.note !== undefined, { error: 'send a status, a note, or both' })

const listQuery = z.strictObject({
  ...pageFields,
  status: status.optional(),
  severity: z.enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` }).optional(),
})

export function caseRoutes(cases: Cases): RouteSpec[] {
  return [
    {
      method: 'POST', path: '/api/compliance/cases', name: 'compliance_case_create', kind: 'keyed', keyTypes: PROJECT_KEYS, body: newCaseBody,
      handle: async (ctx) => Reply.json(await cases.create(projectIdOf(ctx), ctx.body as NewCase), 201),
    },
    {
      method: 'GET', path: '/api/compliance/cases', name: 'compliance_cases', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle(ctx) {
        const query = parseQuery(listQuery, ctx)
        return Reply.json(cases.list(projectIdOf(ctx), pageQueryOf(query, 'case'), query))
      },
    },
    {
      method: 'GET', path: '/api/compliance/cases/:id', name: 'compliance_case', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: (ctx) => Reply.json(cases.get(projectIdOf(ctx), ctx.params.id!)),
    },
    {
      method: 'PATCH', path: '/api/compliance/cases/:id', name: 'compliance_case_update', kind: 'keyed', keyTypes: PROJECT_KEYS, body: caseChangesBody,
      handle: async (ctx) => Reply.json(await cases.update(projectIdOf(ctx), ctx.params.id!, ctx.body as CaseChanges)),
    },
    {
      method: 'POST', path: '/api/compliance/cases/:id/resolve', name: 'compliance_case_resolve', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: async (ctx) => Reply.json(await cases.resolve(projectIdOf(ctx), ctx.params.id!)),
    },
  ]
}
