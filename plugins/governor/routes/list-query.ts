// What every records list takes in its query: a page size, the cursor of the previous page and a
// time window; each list adds its own filters.
import { z } from 'zod'
import type { RequestContext } from '../../../proxy/context.ts'
import { validate } from '../../../proxy/validate.ts'
import type { RecordKind } from '../records/ids.ts'
import { decodeCursor, type PageQuery } from '../records/page.ts'

const MAX_PAGE_SIZE = 200

const instant = (field: string) =>
  z.iso.datetime({ offset: true, error: `${field} must be an ISO 8601 date-time such as 2025-01-31T00:00:00Z` }).transform((text) => Math.max(0, Date.parse(text)))

export const pageFields = {
  limit: z.coerce.number({ error: 'limit must be a number' }).int('limit must be a whole number')
    .min(1, `limit must be between 1 and ${MAX_PAGE_SIZE}`).max(MAX_PAGE_SIZE, `limit must be between 1 and ${MAX_PAGE_SIZE}`).default(50),
  cursor: z.string().min(1, 'cursor must not be empty').max(200, 'cursor is not valid').optional(),
  since: instant('since').optional(),
  until: instant('until').optional(),
}

export function parseQuery<S extends z.ZodType>(schema: S, ctx: RequestContext): z.output<S> {
  return validate(schema, Object.fromEntries(ctx.query), 'query')
}

export function pageQueryOf(query: { limit: number; cursor?: string | undefined; since?: number | undefined; until?: number | undefined }, kind: RecordKind): PageQuery {
  return { limit: query.limit, after: query.cursor === undefined ? undefined : decodeCursor(query.cursor, kind), since: query.since, until: query.until }
}

/** The project of the key that called; records of any other project are not found. */
export function projectIdOf(ctx: RequestContext): string {
  return ctx.state.auth!.project.id
}

/** Compliance records are managed with project keys (spec: Authentication, A.3). */
export const PROJECT_KEYS = ['pk'] as const
