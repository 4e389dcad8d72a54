// Holds of keys with budgets of their own on PostgreSQL: budget leases are kept by project, so
// these are held one by one, each a row of metering_holds beside its key's and project's months.
import type { Sql } from '../../../../proxy/stores/database.ts'
import { admitHold } from '../../logic/admit.ts'
import type { Hold, KeyBudget } from '../records.ts'
import { lockedRow } from './rows.ts'

export interface KeyedReservation {
  readonly hold: Hold
  readonly limitMicros: number
}

/** A hold of a key with its own budget, held, or refused by the project's budget or the key's. */
export type Admission = 'held' | 'project' | 'key'

/**
 * Holds, in order, requests of keys with budgets of their own (budget leases are kept by project,
 * so these are held one by one, in the store).
 */
export async function holdKeyed(sql: Sql, batch: readonly KeyedReservation[], owner: string): Promise<Admission[]> {
  const admitted: Admission[] = []
  for (const reservation of batch) admitted.push(await holdWithKey(sql, reservation, reservation.hold.key!, owner))
  return admitted
}

/**
 * Holds one request of a key with its own budget, of the key's month row and the project's, or of
 * neither, admitted as every store admits (logic/admit.ts). The key's row is locked first, in the
 * order a settlement takes month rows (by holder id: `key_…` before `proj_…`), so the two never deadlock.
 */
async function holdWithKey(sql: Sql, { hold: held, limitMicros }: KeyedReservation, key: KeyBudget, owner: string): Promise<Admission> {
  const keyRow = await lockedRow(sql, key.keyId, held.month)
  const admitted = admitHold(held.micros, { row: await lockedRow(sql, held.projectId, held.month), limitMicros }, { row: keyRow, limitMicros: key.limitMicros })
  if (!admitted.ok) return admitted.byKey === true ? 'key' : 'project'
  await sql.query('UPDATE metering_budgets SET reserved_micros = reserved_micros + $3 WHERE project_id = ANY($1::text[]) AND month = $2', [
    [key.keyId, held.projectId],
    held.month,
    held.micros,
  ])
  await sql.query('INSERT INTO metering_holds (request_id, project_id, month, micros, owner, key_id) VALUES ($1, $2, $3, $4, $5, $6)', [
    held.requestId,
    held.projectId,
    held.month,
    held.micros,
    owner,
    key.keyId,
  ])
  return 'held'
}
