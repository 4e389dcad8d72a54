// What every records list takes in its query: a page size, the cursor of the previous page and a
// time window; each list adds its own filters.
import { z } from 'zod'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { validate } from '../../../proxy/http/validate.ts'
import type { RecordKind } from '../ids.ts'
import { deletedAnswer } from './answers.ts'
import { decodeCursor, type PageQuery } from '../store/page.ts'

const MAX_PAGE_SIZE = 200

const instant = (field: string) =>
  z.iso
    .datetime({ offset: true, error: `${field} must be an ISO 8601 date-time such as 2025-01-31T00:00:00Z` })
    .transform((text) => Math.max(0, Date.parse(text)))

export const pageFields = {
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, `limit must be between 1 and ${MAX_PAGE_SIZE}`)
    .max(MAX_PAGE_SIZE, `limit must be between 1 and ${MAX_PAGE_SIZE}`)
    .default(50),
  cursor: z.string().min(1, 'cursor must not be empty').max(200, 'cursor is not valid').optional(),
  since: instant('since').optional(),
  until: instant('until').optional(),
}

export function parseQuery<S extends z.ZodType>(schema: S, ctx: RequestContext): z.output<S> {
  return validate(schema, Object.fromEntries(ctx.query), 'query')
}

export function pageQueryOf(
  query: { limit: number; cursor?: string | undefined; since?: number | undefined; until?: number | undefined },
  kind: RecordKind,
): PageQuery {
  return { limit: query.limit, after: query.cursor === undefined ? undefined : decodeCursor(query.cursor, kind), since: query.since, until: query.until }
}

/** Compliance records are managed with project keys (spec: Authentication, A.3). */
export const PROJECT_KEYS = ['pk'] as const

/** What a record collection with create, read, update and delete by id offers its routes. */
interface EditableRecords<New, Changes, Item extends { readonly id: string }> {
  create(projectId: string, input: New): Promise<Item>
  get(projectId: string, id: string): Item | Promise<Item>
  update(projectId: string, id: string, changes: Changes): Promise<Item>
  remove(projectId: string, id: string): Promise<Item>
}

/** POST `path`, and GET, PATCH, DELETE `path/:id`, named after `name` (singular) for metrics. */
export function editableRoutes<New, Changes, Item extends { readonly id: string }>(
  path: string,
  name: string,
  records: EditableRecords<New, Changes, Item>,
  bodies: { readonly create: z.ZodType; readonly update: z.ZodType; readonly item: z.ZodType; readonly createErrors?: readonly number[] },
): ProjectRouteSpec[] {
  const keyTypes = PROJECT_KEYS
  return [
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path,
      name: `${name}_create`,
      body: bodies.create,
      docs: { status: 201, response: bodies.item, errors: bodies.createErrors ?? [] },
      handle: async (ctx, project) => Reply.json(await records.create(project.id, ctx.body as New), 201),
    },
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: `${path}/:id`,
      name,
      docs: { response: bodies.item },
      handle: async (ctx, project) => Reply.json(await records.get(project.id, ctx.params.id!)),
    },
    {
      keyTypes,
      writes: true,
      method: 'PATCH',
      path: `${path}/:id`,
      name: `${name}_update`,
      body: bodies.update,
      docs: { response: bodies.item },
      handle: async (ctx, project) => Reply.json(await records.update(project.id, ctx.params.id!, ctx.body as Changes)),
    },
    {
      keyTypes,
      writes: true,
      method: 'DELETE',
      path: `${path}/:id`,
      name: `${name}_delete`,
      docs: { response: deletedAnswer },
      handle: async (ctx, project) => Reply.json({ id: (await records.remove(project.id, ctx.params.id!)).id, deleted: true }),
    },
  ]
}
