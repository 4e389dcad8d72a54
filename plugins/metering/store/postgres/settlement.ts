// Settles a batch of ledger entries on PostgreSQL in three statements, whatever its size: the
// entries are inserted once each (keyed by request id) with their holds and checkpoints removed;
// then the figures of each day and model, of each day's keys, users and tags, and each month's row
// are added to in one statement; then the thresholds crossed are noted. Rows are touched in one
// order (by project, month, day, model or value), so two gateways' batches wait for each other and never deadlock.
import type { Sql } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import type { LedgerEntry } from '../records.ts'
import { crossedThresholds } from '../../logic/settle.ts'
import { spendOf, type SpendDimension } from '../../logic/spend-breakdown.ts'

export interface Settlement {
  readonly entry: LedgerEntry
  readonly limitMicros: number
  /** Its hold was carved from its gateway's budget lease (the lease's row in metering_holds), which shrinks by it. */
  readonly lease?: { readonly id: string; readonly month: string; readonly micros: number }
}

export interface BudgetRecord {
  project_id: string
  month: string
  used_micros: string
  reserved_micros: string
  overage_micros: string
  notified: number[]
}

interface SettledBatch {
  /** Each settlement's month row once the batch is applied, in the batch's order. */
  readonly rows: readonly BudgetRow[]
  /** Whether any budget changed: when none did, the commit need not wait for the disk. */
  readonly movesMoney: boolean
}

const dollars = (micros: number) => micros / 1e6
const monthKey = (projectId: string, month: string) => `${projectId}\u0000${month}`
const byKey =
  <T>(key: (item: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0

export function rowOf(record: BudgetRecord | undefined): BudgetRow {
  if (record === undefined) return { usedMicros: 0, reservedMicros: 0 }
  const overageMicros = Number(record.overage_micros)
  return {
    usedMicros: Number(record.used_micros),
    reservedMicros: Number(record.reserved_micros),
    ...(overageMicros === 0 ? {} : { overageMicros }),
    ...(record.notified.length === 0 ? {} : { notified: record.notified }),
  }
}

interface MonthCharge {
  projectId: string
  month: string
  usedMicros: number
  overageMicros: number
  /** Given back from leases: what their holds took of the month. */
  leasedMicros: number
  /** The limit the latest of its settlements was made under. */
  limitMicros: number
}

interface DayModel {
  projectId: string
  day: string
  model: string
  requests: number
  tokens: number
  costMicros: number
  hits: number
  misses: number
  unpriced: number
}

interface DaySpend {
  projectId: string
  day: string
  dimension: SpendDimension
  value: string
  requests: number
  tokens: number
  costMicros: number
}

/**
 * The CTEs `sums` and `given` that give holds deleted by the CTE `deleted` (project_id, key_id,
 * month, micros) back to what their months have reserved: the project's, and the key's when it
 * has a budget of its own.
 */
export const giveBackHolds = (deleted: string) => `sums AS (
       SELECT holder AS project_id, month, sum(micros) AS micros
       FROM (SELECT project_id AS holder, month, micros FROM ${deleted} UNION ALL SELECT key_id, month, micros FROM ${deleted} WHERE key_id IS NOT NULL) AS h
       GROUP BY holder, month
     ), given AS (
       UPDATE metering_budgets AS b SET reserved_micros = greatest(0, b.reserved_micros - sums.micros)
       FROM sums WHERE b.project_id = sums.project_id AND b.month = sums.month
     )`

export async function settleBatch(sql: Sql, batch: readonly Settlement[], events: SharedEventOutbox | undefined): Promise<SettledBatch> {
  // A request settled twice in one batch (a retry) is one entry: the settlement that carries its lease, if one does.
  const byId = new Map<string, Settlement>()
  for (const s of batch) if (s.lease !== undefined || byId.get(s.entry.id)?.lease === undefined) byId.set(s.entry.id, s)
  const unique = [...byId.values()]
  // `recorded`: entries this batch records; `shrinks`: those whose lease shrinks now, once per
  // entry. An entry recorded already shrinks its lease only if no settlement did before: the one
  // that recorded it carried none (another gateway's), where an earlier commit of this one (seen
  // to fail though it landed) did. ON CONFLICT DO UPDATE decides that on the row itself, after
  // waiting for a gateway that is inserting it at the same moment; xmax is 0 on a row just inserted.
  const applied = await sql.query<{ recorded: string[]; shrinks: string[]; released: number }>(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::boolean[]) AS i(id, project_id, month, entry, leased)
     ), written AS (
       INSERT INTO metering_ledger AS l (id, project_id, month, entry, lease_shrunk) SELECT id, project_id, month, entry, leased FROM input
       ON CONFLICT (id) DO UPDATE SET lease_shrunk = true WHERE excluded.lease_shrunk AND NOT l.lease_shrunk
       RETURNING id, (xmax = 0) AS fresh, lease_shrunk
     ), released AS (
       DELETE FROM metering_holds WHERE request_id IN (SELECT id FROM input) RETURNING project_id, key_id, month, micros
     ), ${giveBackHolds('released')}, dropped AS (
       DELETE FROM metering_checkpoints WHERE request_id IN (SELECT id FROM input)
     )
     SELECT (SELECT coalesce(array_agg(id), '{}') FROM written WHERE fresh) AS recorded,
            (SELECT coalesce(array_agg(id), '{}') FROM written WHERE lease_shrunk) AS shrinks,
            (SELECT coalesce(sum(micros), 0)::bigint FROM released) AS released`,
    [
      unique.map((s) => s.entry.id),
      unique.map((s) => s.entry.projectId),
      unique.map((s) => s.entry.month),
      unique.map((s) => JSON.stringify(s.entry)),
      unique.map((s) => s.lease !== undefined),
    ],
  )
  const inserted = new Set(applied.rows[0]!.recorded)
  const shrinks = new Set(applied.rows[0]!.shrinks)
  const charges = new Map<string, MonthCharge>()
  const stats = new Map<string, DayModel>()
  const chargeOf = (projectId: string, month: string, limitMicros: number) => {
    const key = monthKey(projectId, month)
    const charge = charges.get(key) ?? { projectId, month, usedMicros: 0, overageMicros: 0, leasedMicros: 0, limitMicros }
    charges.set(key, charge)
    return charge
  }
  const spending = new Map<string, DaySpend>()
  // An entry recorded already was charged by the commit that recorded it (one the gateway saw fail
  // though it landed, a dead process's journal replayed after its commit, or another gateway's).
  const settled = unique.filter(({ entry }) => inserted.has(entry.id))
  // A lease shrinks once per entry: shrinking it again would free budget other requests still hold.
  const leased = unique.flatMap(({ entry, lease, limitMicros }) => (lease !== undefined && shrinks.has(entry.id) ? [{ entry, lease, limitMicros }] : []))
  for (const { entry, lease, limitMicros } of leased) chargeOf(entry.projectId, lease.month, limitMicros).leasedMicros += lease.micros
  for (const { entry, limitMicros } of settled) {
    const month = monthKey(entry.projectId, entry.month)
    const charge = chargeOf(entry.projectId, entry.month, limitMicros)
    charge.usedMicros += entry.costMicros
    charge.overageMicros += entry.overageMicros ?? 0
    charge.limitMicros = limitMicros
    // The key's month too, so that a budget given to a key counts what it spent before; a key has no thresholds.
    const keyCharge = chargeOf(entry.keyId, entry.month, 0)
    keyCharge.usedMicros += entry.costMicros
    const dayModel = `${month}\u0000${entry.day}\u0000${entry.model}`
    const figures = stats.get(dayModel) ?? {
      projectId: entry.projectId,
      day: entry.day,
      model: entry.model,
      requests: 0,
      tokens: 0,
      costMicros: 0,
      hits: 0,
      misses: 0,
      unpriced: 0,
    }
    figures.requests++
    figures.tokens += entry.promptTokens + entry.completionTokens
    figures.costMicros += entry.costMicros
    if (entry.cacheHit) figures.hits++
    else if (entry.passthrough !== true) figures.misses++
    if (entry.unpriced !== undefined) figures.unpriced++
    stats.set(dayModel, figures)
    const spent = spendOf(entry)
    for (const [dimension, value] of spent.values) {
      const key = `${entry.projectId}\u0000${dimension}\u0000${entry.day}\u0000${value}`
      const sum = spending.get(key) ?? { projectId: entry.projectId, day: entry.day, dimension, value, requests: 0, tokens: 0, costMicros: 0 }
      sum.requests += spent.figures.requests
      sum.tokens += spent.figures.tokens
      sum.costMicros += spent.figures.costMicros
      spending.set(key, sum)
    }
  }
  const days = [...stats.values()].sort(byKey((d) => `${d.projectId}\u0000${d.day}\u0000${d.model}`))
  const spends = [...spending.values()].sort(byKey((d) => `${d.projectId}\u0000${d.dimension}\u0000${d.day}\u0000${d.value}`))
  // A record that moves no money (a cache hit, an error before any token) takes no lock on its month's row.
  const moving = [...charges.values()]
    .filter((c) => c.usedMicros > 0 || c.overageMicros > 0 || c.leasedMicros > 0)
    .sort(byKey((c) => monthKey(c.projectId, c.month)))
  const charged =
    days.length === 0 && moving.length === 0
      ? { rows: [] }
      : await sql.query<BudgetRecord>(
          `WITH stats AS (
       INSERT INTO metering_model_days AS d (project_id, day, model, requests, tokens, cost_micros, hits, misses, unpriced)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
       ON CONFLICT (project_id, day, model) DO UPDATE SET
         requests = d.requests + excluded.requests, tokens = d.tokens + excluded.tokens, cost_micros = d.cost_micros + excluded.cost_micros,
         hits = d.hits + excluded.hits, misses = d.misses + excluded.misses, unpriced = d.unpriced + excluded.unpriced
     ), spend AS (
       INSERT INTO metering_spend_days AS s (project_id, dimension, day, value, requests, tokens, cost_micros)
       SELECT * FROM unnest($14::text[], $15::text[], $16::text[], $17::text[], $18::bigint[], $19::bigint[], $20::bigint[])
       ON CONFLICT (project_id, dimension, day, value) DO UPDATE SET
         requests = s.requests + excluded.requests, tokens = s.tokens + excluded.tokens, cost_micros = s.cost_micros + excluded.cost_micros
     )
     INSERT INTO metering_budgets AS b (project_id, month, used_micros, overage_micros)
     SELECT * FROM unnest($10::text[], $11::text[], $12::bigint[], $13::bigint[])
     ON CONFLICT (project_id, month) DO UPDATE SET
       used_micros = b.used_micros + excluded.used_micros, overage_micros = b.overage_micros + excluded.overage_micros
     RETURNING *`,
          [
            days.map((d) => d.projectId),
            days.map((d) => d.day),
            days.map((d) => d.model),
            days.map((d) => d.requests),
            days.map((d) => d.tokens),
            days.map((d) => d.costMicros),
            days.map((d) => d.hits),
            days.map((d) => d.misses),
            days.map((d) => d.unpriced),
            moving.map((c) => c.projectId),
            moving.map((c) => c.month),
            moving.map((c) => c.usedMicros),
            moving.map((c) => c.overageMicros),
            spends.map((d) => d.projectId),
            spends.map((d) => d.dimension),
            spends.map((d) => d.day),
            spends.map((d) => d.value),
            spends.map((d) => d.requests),
            spends.map((d) => d.tokens),
            spends.map((d) => d.costMicros),
          ],
        )
  const rows = new Map(charged.rows.map((record) => [monthKey(record.project_id, record.month), record]))
  // The month rows are locked now, in order: the leases' rows after them, as a lease's growth takes them.
  if (leased.length > 0) {
    const given = await sql.query<BudgetRecord>(
      `WITH asked AS (
         SELECT id, sum(micros) AS micros FROM unnest($1::text[], $2::bigint[]) AS a(id, micros) GROUP BY id
       ), locked AS (
         SELECT h.request_id, h.project_id, h.month, least(h.micros, a.micros) AS taken, h.micros - least(h.micros, a.micros) AS left_micros
         FROM metering_holds h JOIN asked a ON a.id = h.request_id FOR UPDATE OF h
       ), kept AS (
         UPDATE metering_holds h SET micros = l.left_micros FROM locked l WHERE h.request_id = l.request_id AND l.left_micros > 0
       ), gone AS (
         DELETE FROM metering_holds h USING locked l WHERE h.request_id = l.request_id AND l.left_micros = 0
       ), sums AS (
         SELECT project_id, month, sum(taken) AS micros FROM locked GROUP BY project_id, month
       )
       UPDATE metering_budgets AS b SET reserved_micros = greatest(0, b.reserved_micros - sums.micros)
       FROM sums WHERE b.project_id = sums.project_id AND b.month = sums.month
       RETURNING b.*`,
      [leased.map(({ lease }) => lease.id), leased.map(({ lease }) => lease.micros)],
    )
    for (const record of given.rows) rows.set(monthKey(record.project_id, record.month), record)
  }
  for (const charge of moving) {
    const key = monthKey(charge.projectId, charge.month)
    rows.set(key, await noteThresholds(sql, rows.get(key)!, charge.limitMicros, events))
  }
  const unread = [...new Set(unique.map((s) => monthKey(s.entry.projectId, s.entry.month)))].filter((key) => !rows.has(key))
  if (unread.length > 0) {
    const found = await sql.query<BudgetRecord>(
      `SELECT b.* FROM metering_budgets b JOIN unnest($1::text[], $2::text[]) AS k(project_id, month) USING (project_id, month)`,
      [unread.map((key) => key.split('\u0000')[0]), unread.map((key) => key.split('\u0000')[1])],
    )
    for (const record of found.rows) rows.set(monthKey(record.project_id, record.month), record)
  }
  return {
    rows: batch.map((s) => rowOf(rows.get(monthKey(s.entry.projectId, s.entry.month)))),
    movesMoney: moving.length > 0 || Number(applied.rows[0]!.released) > 0,
  }
}

/** Notes and announces the thresholds the month's row has crossed since it was last noted. */
async function noteThresholds(sql: Sql, record: BudgetRecord, limitMicros: number, events: SharedEventOutbox | undefined): Promise<BudgetRecord> {
  const usedMicros = Number(record.used_micros)
  const crossed = crossedThresholds(usedMicros, limitMicros, record.notified)
  if (crossed.length === 0) return record
  const notified = [...record.notified, ...crossed]
  await sql.query('UPDATE metering_budgets SET notified = $3 WHERE project_id = $1 AND month = $2', [record.project_id, record.month, notified])
  for (const threshold of crossed) {
    await events?.emit(sql, 'usage.threshold_reached', record.project_id, {
      period: record.month,
      threshold_percent: threshold,
      budget_limit: dollars(limitMicros),
      budget_used: dollars(usedMicros),
    })
  }
  return { ...record, notified }
}
