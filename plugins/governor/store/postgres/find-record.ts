// One record of a project by id, as each record family's changes start: read, or locked for the
// rest of the transaction, and a 404 naming the record when the project has none by that id.
import type { Sql } from '../../../../proxy/stores/database.ts'
import { NotFoundError } from '../../../../proxy/pipeline/errors.ts'

type FindRecord<T> = (sql: Sql, projectId: string, id: string, lock: boolean) => Promise<T>

/** `table` is one of the Governor's own table names, never input. */
export function recordFinder<T>(table: string, noun: string): FindRecord<T> {
  const read = `SELECT record FROM ${table} WHERE project_id = $1 AND id = $2`
  const locked = `${read} FOR UPDATE`
  return async (sql, projectId, id, lock) => {
    const found = await sql.query<{ record: T }>(lock ? locked : read, [projectId, id])
    const record = found.rows[0]?.record
    if (record === undefined) throw new NotFoundError(`No ${noun} ${id} in this project.`)
    return record
  }
}
