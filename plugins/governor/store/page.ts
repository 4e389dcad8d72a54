// Newest-first pages of a project's records with an opaque cursor. Ids are ulids, so a time
// window is a key range: only records inside it are read, then filtered.
import type { Database, Key } from 'lmdb'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import { ID_PREFIXES, idAtTime, type RecordKind } from '../ids.ts'
import type { ProjectKey } from './lmdb/databases.ts'

export interface PageQuery {
  readonly limit: number
  /** The id of the last record of the previous page. */
  readonly after?: string | undefined
  /** Epoch milliseconds, inclusive. */
  readonly since?: number | undefined
  readonly until?: number | undefined
}

export interface Page<T> {
  readonly data: readonly T[]
  readonly nextCursor: string | null
}

export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url')
}

/** The id a cursor stands for; a cursor of another list or a made-up one is a 400. */
export function decodeCursor(cursor: string, kind: RecordKind): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8')
  if (!new RegExp(`^${ID_PREFIXES[kind]}[0-9a-z]{26}$`).test(id)) {
    throw new InvalidRequestError(
      'Invalid request: cursor is not valid',
      'The cursor does not come from this list; pass nextCursor from the previous page as it was.',
      [{ path: 'cursor', message: 'cursor is not valid' }],
    )
  }
  return id
}

export function pageOf<T extends { readonly id: string }>(
  db: Database<T, Key>,
  projectId: string,
  kind: RecordKind,
  query: PageQuery,
  keep: (record: T) => boolean,
): Page<T> {
  const newest = query.until === undefined ? `${ID_PREFIXES[kind]}~` : idAtTime(kind, query.until + 1)
  const start = query.after !== undefined && query.after < newest ? query.after : newest
  const end = query.since === undefined ? ID_PREFIXES[kind] : idAtTime(kind, query.since)
  const data: T[] = []
  for (const { key, value } of db.getRange({ start: [projectId, start], end: [projectId, end], reverse: true })) {
    if ((key as ProjectKey)[1] === query.after || !keep(value)) continue
    if (data.length === query.limit) return { data, nextCursor: encodeCursor(data.at(-1)!.id) }
    data.push(value)
  }
  return { data, nextCursor: null }
}
