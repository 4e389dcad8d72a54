// /api/compliance/cases: open a case from violations, list, read, change status or add a note,
// resolve.
import { z } from 'zod'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { CaseChanges, Cases, NewCase } from '../store/records.ts'
import { SEVERITIES } from '../logic/verdict/types.ts'
import { caseAnswer, pageOf } from './answers.ts'
import { pageFields, pageQueryOf, parseQuery, PROJECT_KEYS } from './list-query.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const CASE_STATUSES = ['open', 'investigating', 'resolved'] as const
const status = oneOf('status', CASE_STATUSES)
const note = z.string({ error: 'note must be a string' }).trim().min(1, 'note must not be empty').max(4000, 'note may hold at most 4000 characters')

const newCaseBody = z.strictObject({
  title: z.string({ error: 'title is required' }).trim().min(1, 'title must not be empty').max(200, 'title may hold at most 200 characters'),
  violationIds: z
    .array(z.string().min(1).max(64), { error: 'violationIds must be an array of violation ids' })
    .min(1, 'violationIds must name at least one violation')
    .max(100, 'violationIds may name at most 100 violations'),
  note: note.optional(),
})

const caseChangesBody = z
  .strictObject({ status: status.optional(), note: note.optional() })
  .refine((body) => body.status !== undefined || body.note !== undefined, { error: 'send a status, a note, or both' })

const listQuery = z.strictObject({
  ...pageFields,
  status: status.optional(),
  severity: oneOf('severity', SEVERITIES).optional(),
})

export function caseRoutes(cases: Cases): ProjectRouteSpec[] {
  const keyTypes = PROJECT_KEYS
  return [
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path: '/compliance/cases',
      name: 'compliance_case_create',
      body: newCaseBody,
      docs: { status: 201, response: caseAnswer },
      handle: async (ctx, project) => Reply.json(await cases.create(project.id, ctx.body as NewCase), 201),
    },
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/compliance/cases',
      name: 'compliance_cases',
      docs: { query: listQuery, response: pageOf(caseAnswer) },
      async handle(ctx, project) {
        const query = parseQuery(listQuery, ctx)
        return Reply.json(await cases.list(project.id, pageQueryOf(query, 'case'), query))
      },
    },
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/compliance/cases/:id',
      name: 'compliance_case',
      docs: { response: caseAnswer },
      handle: async (ctx, project) => Reply.json(await cases.get(project.id, ctx.params.id!)),
    },
    {
      keyTypes,
      writes: true,
      method: 'PATCH',
      path: '/compliance/cases/:id',
      name: 'compliance_case_update',
      body: caseChangesBody,
      docs: { response: caseAnswer, errors: [409] },
      handle: async (ctx, project) => Reply.json(await cases.update(project.id, ctx.params.id!, ctx.body as CaseChanges)),
    },
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path: '/compliance/cases/:id/resolve',
      name: 'compliance_case_resolve',
      docs: { response: caseAnswer, errors: [409] },
      handle: async (ctx, project) => Reply.json(await cases.resolve(project.id, ctx.params.id!)),
    },
  ]
}
