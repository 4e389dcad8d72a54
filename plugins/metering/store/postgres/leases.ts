// This gateway's budget leases on PostgreSQL (../leases.ts carves holds from them in memory): a
// row of metering_holds per project and month, grown in a transaction that locks the month's row,
// so no interleaving of gateways can hold more than the limit; given back when unused, and dropped
// when the gateway's owner lease runs out.
import type { PluginDatabase } from '../../../../proxy/stores/database.ts'
import { grantLease, type LeaseResult } from '../../logic/admit.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import type { LeaseStore } from '../leases.ts'
import { lockedRow } from './rows.ts'
import { giveBackHolds } from './settlement.ts'

/** Notes that a month could not cover what was asked of it (usage.limit_exceeded, once a month). */
type LimitNote = (projectId: string, month: string, limitMicros: number, requestedMicros: number) => Promise<unknown>

/** Beside the requests' own holds in metering_holds: a request id never starts with it. */
export const leaseIdOf = (owner: string, projectId: string, month: string) => `lease/${owner}/${projectId}/${month}`

/** The month's row as a lease's growth read it, locked: what the next settlement's row starts from. */
type RowNote = (projectId: string, month: string, row: BudgetRow) => void

export function postgresLeaseStore(database: PluginDatabase, owner: string, noteLimit: LimitNote, noteRow: RowNote): LeaseStore {
  return {
    async growLease(projectId, month, needMicros, limitMicros, spare): Promise<LeaseResult> {
      const grown = await database.transaction(async (sql): Promise<LeaseResult> => {
        const row = await lockedRow(sql, projectId, month)
        noteRow(projectId, month, row)
        const granted = grantLease(row, limitMicros, needMicros, spare)
        if (!('grantedMicros' in granted)) return granted
        const { grantedMicros } = granted
        await sql.query('UPDATE metering_budgets SET reserved_micros = reserved_micros + $3 WHERE project_id = $1 AND month = $2', [
          projectId,
          month,
          grantedMicros,
        ])
        await sql.query(
          `INSERT INTO metering_holds (request_id, project_id, month, micros, owner) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (request_id) DO UPDATE SET micros = metering_holds.micros + excluded.micros`,
          [leaseIdOf(owner, projectId, month), projectId, month, grantedMicros, owner],
        )
        return { grantedMicros }
      })
      if ('availableMicros' in grown) await noteLimit(projectId, month, limitMicros, needMicros)
      return grown
    },
    // Asked before the transaction: if it fails, what was taken from memory stays reserved in the
    // database until this gateway's rows are taken over, never the other way round.
    async returnLease(projectId, month, micros) {
      const unused = micros()
      if (unused <= 0) return 0
      return database.transaction(async (sql) => {
        await sql.query('SELECT 1 FROM metering_budgets WHERE project_id = $1 AND month = $2 FOR UPDATE', [projectId, month])
        const given = await sql.query<{ micros: string }>(
          `WITH locked AS (
             SELECT request_id, least(micros, $2::bigint) AS taken, micros - least(micros, $2::bigint) AS left_micros FROM metering_holds WHERE request_id = $1 FOR UPDATE
           ), kept AS (
             UPDATE metering_holds h SET micros = l.left_micros FROM locked l WHERE h.request_id = l.request_id AND l.left_micros > 0
           ), gone AS (
             DELETE FROM metering_holds h USING locked l WHERE h.request_id = l.request_id AND l.left_micros = 0
           ), given AS (
             UPDATE metering_budgets SET reserved_micros = greatest(0, reserved_micros - (SELECT coalesce(sum(taken), 0) FROM locked))
             WHERE project_id = $3 AND month = $4
           )
           SELECT coalesce(sum(taken), 0)::bigint AS micros FROM locked`,
          [leaseIdOf(owner, projectId, month), unused, projectId, month],
        )
        return Number(given.rows[0]!.micros)
      })
    },
  }
}

/** Gives back every lease this gateway has in the database (after its owner lease ran out, they may be taken over). */
export async function dropLeases(database: PluginDatabase, owner: string): Promise<void> {
  await database.transaction(async (sql) => {
    await sql.query(
      `WITH gone AS (
         DELETE FROM metering_holds WHERE owner = $1 AND request_id LIKE 'lease/%' RETURNING project_id, key_id, month, micros
       ), ${giveBackHolds('gone')}
       SELECT count(*) FROM gone`,
      [owner],
    )
  })
}
