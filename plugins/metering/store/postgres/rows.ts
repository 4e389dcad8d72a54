// The month rows of metering_budgets that budgets are checked against: read, locked for a
// decision in the transaction that acts on it, and the limit's notice, noted once a month.
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import { LIMIT } from '../../logic/settle.ts'
import { rowOf, type BudgetRecord } from './settlement.ts'

const dollars = (micros: number) => micros / 1e6

export async function budgetRow(database: PluginDatabase, holder: string, month: string): Promise<BudgetRow> {
  const found = await database.query<BudgetRecord>('SELECT * FROM metering_budgets WHERE project_id = $1 AND month = $2', [holder, month])
  return rowOf(found.rows[0])
}

/** The month's row of a project or key, created if new, locked until the transaction ends. */
export async function lockedRow(sql: Sql, holder: string, month: string): Promise<BudgetRow> {
  await sql.query('INSERT INTO metering_budgets (project_id, month) VALUES ($1, $2) ON CONFLICT DO NOTHING', [holder, month])
  return rowOf((await sql.query<BudgetRecord>('SELECT * FROM metering_budgets WHERE project_id = $1 AND month = $2 FOR UPDATE', [holder, month])).rows[0])
}

/** Notes the month's limit and sends usage.limit_exceeded, once a month: the row as noted, or undefined when it was noted before. */
export async function noteLimit(
  database: PluginDatabase,
  events: SharedEventOutbox | undefined,
  projectId: string,
  month: string,
  limitMicros: number,
  requestedMicros: number,
): Promise<BudgetRow | undefined> {
  return database.transaction(async (sql) => {
    const noted = await sql.query<BudgetRecord>(
      `INSERT INTO metering_budgets AS b (project_id, month, notified) VALUES ($1, $2, ARRAY[${LIMIT}])
       ON CONFLICT (project_id, month) DO UPDATE SET notified = b.notified || ${LIMIT}
       WHERE NOT ${LIMIT} = ANY(b.notified)
       RETURNING *`,
      [projectId, month],
    )
    if (noted.rows[0] === undefined) return undefined
    const row = rowOf(noted.rows[0])
    await events?.emit(sql, 'usage.limit_exceeded', projectId, {
      period: month,
      budget_limit: dollars(limitMicros),
      budget_used: dollars(row.usedMicros),
      budget_reserved: dollars(row.reservedMicros),
      requested_cost: dollars(requestedMicros),
    })
    return row
  })
}
