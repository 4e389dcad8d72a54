// Newest-first pages of a project's records in PostgreSQL, with the same cursors and time window
// as in LMDB (store/page.ts): ids are ulids, so the window is a range of the primary key.
import type { Sql } from '../../../../proxy/stores/database.ts'
import { ID_PREFIXES, idAtTime, type RecordKind } from '../../ids.ts'
import { encodeCursor, type Page, type PageQuery } from '../page.ts'

/** `filters`: column name → the value it must hold; undefined leaves the column out. Column names come from code only. */
export async function pageOfRows<T extends { readonly id: string }>(
  sql: Sql,
  table: string,
  projectId: string,
  kind: RecordKind,
  query: PageQuery,
  filters: Readonly<Record<string, string | undefined>>,
): Promise<Page<T>> {
  const newest = query.until === undefined ? `${ID_PREFIXES[kind]}~` : idAtTime(kind, query.until + 1)
  const start = query.after !== undefined && query.after < newest ? query.after : newest
  const end = query.since === undefined ? ID_PREFIXES[kind] : idAtTime(kind, query.since)
  const values: unknown[] = [projectId, start, end, query.limit + 1]
  let conditions = ''
  for (const [column, value] of Object.entries(filters)) {
    if (value === undefined) continue
    values.push(value)
    conditions += ` AND ${column} = $${values.length}`
  }
  const found = await sql.query<{ record: T }>(
    `SELECT record FROM ${table} WHERE project_id = $1 AND id < $2 AND id > $3${conditions} ORDER BY id DESC LIMIT $4`,
    values,
  )
  const data = found.rows.slice(0, query.limit).map((row) => row.record)
  return { data, nextCursor: found.rows.length > query.limit ? encodeCursor(data.at(-1)!.id) : null }
}
