// Metering's records on PostgreSQL beside its budgets: ledger entries, the day figures /api/usage
// reads, and running streams' checkpoints.
import type { PluginDatabase } from '../../../../proxy/stores/database.ts'
import type { PeriodRange } from '../../logic/periods.ts'
import { mergeSpendRows, type SpendDimension, type SpendRow } from '../../logic/spend-breakdown.ts'
import type { DayStats, LedgerEntry, ModelStats, StreamCheckpoint } from '../records.ts'

export async function ledgerEntry(database: PluginDatabase, id: string): Promise<LedgerEntry | undefined> {
  const found = await database.query<{ entry: LedgerEntry }>('SELECT entry FROM metering_ledger WHERE id = $1', [id])
  return found.rows[0]?.entry
}

/** The figures of each day of the range that had any request, by day. */
export async function dayStats(database: PluginDatabase, projectId: string, range: PeriodRange): Promise<ReadonlyMap<string, DayStats>> {
  const found = await database.query<{
    day: string
    model: string
    requests: string
    tokens: string
    cost_micros: string
    hits: string
    misses: string
    unpriced: string
  }>('SELECT * FROM metering_model_days WHERE project_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, model', [projectId, range.start, range.end])
  const days = new Map<string, { hits: number; misses: number; models: Record<string, ModelStats> }>()
  for (const record of found.rows) {
    const day = days.get(record.day) ?? { hits: 0, misses: 0, models: {} }
    day.hits += Number(record.hits)
    day.misses += Number(record.misses)
    const unpriced = Number(record.unpriced)
    day.models[record.model] = {
      requests: Number(record.requests),
      tokens: Number(record.tokens),
      costMicros: Number(record.cost_micros),
      ...(unpriced === 0 ? {} : { unpriced }),
    }
    days.set(record.day, day)
  }
  return days as ReadonlyMap<string, DayStats>
}

/** The range's figures of each key, user or tag that had a request, the costliest first. */
export async function spend(database: PluginDatabase, projectId: string, range: PeriodRange, dimension: SpendDimension): Promise<SpendRow[]> {
  const found = await database.query<{ value: string; requests: string; tokens: string; cost_micros: string }>(
    `SELECT value, sum(requests) AS requests, sum(tokens) AS tokens, sum(cost_micros) AS cost_micros FROM metering_spend_days
     WHERE project_id = $1 AND dimension = $2 AND day BETWEEN $3 AND $4 GROUP BY value`,
    [projectId, dimension, range.start, range.end],
  )
  return mergeSpendRows(
    found.rows.map((record) => ({
      value: record.value,
      requests: Number(record.requests),
      tokens: Number(record.tokens),
      costMicros: Number(record.cost_micros),
    })),
  )
}

/** Checkpoints of streams not yet settled; a stream's earlier checkpoint is kept or replaced. */
export async function insertCheckpoints(
  database: PluginDatabase,
  owner: string,
  progress: readonly StreamCheckpoint[],
  earlier: 'keep' | 'replace',
): Promise<void> {
  if (progress.length === 0) return
  const onConflict = earlier === 'keep' ? 'DO NOTHING' : 'DO UPDATE SET owner = excluded.owner, limit_micros = excluded.limit_micros, entry = excluded.entry'
  await database.query(
    `INSERT INTO metering_checkpoints (request_id, owner, limit_micros, entry)
     SELECT p.id, p.owner, p.limit_micros, p.entry
     FROM unnest($1::text[], $2::text[], $3::bigint[], $4::jsonb[]) AS p(id, owner, limit_micros, entry)
     WHERE NOT EXISTS (SELECT 1 FROM metering_ledger l WHERE l.id = p.id)
     ON CONFLICT (request_id) ${onConflict}`,
    [progress.map((p) => p.entry.id), progress.map(() => owner), progress.map((p) => p.limitMicros), progress.map((p) => JSON.stringify(p.entry))],
  )
}
