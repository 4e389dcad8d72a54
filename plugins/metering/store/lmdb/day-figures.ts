// The figures /api/usage reads, kept per project and day as entries settle: by model (requests,
// tokens, cost, hits and misses), and by key, user and tag; one flat row each, small to re-encode.
import { addSpend, mergeSpendRows, spendOf, ZERO_SPEND, type SpendDimension, type SpendFigures, type SpendRow } from '../../logic/spend-breakdown.ts'
import type { DayStats, LedgerEntry, ModelStats } from '../records.ts'
import type { LedgerTables } from './tables.ts'

export interface ModelDayStats extends ModelStats {
  readonly hits: number
  readonly misses: number
}

const ZERO_STATS: ModelDayStats = { requests: 0, tokens: 0, costMicros: 0, hits: 0, misses: 0 }

function addStats(a: ModelDayStats, b: ModelDayStats): ModelDayStats {
  const unpriced = (a.unpriced ?? 0) + (b.unpriced ?? 0)
  return {
    requests: a.requests + b.requests,
    tokens: a.tokens + b.tokens,
    costMicros: a.costMicros + b.costMicros,
    hits: a.hits + b.hits,
    misses: a.misses + b.misses,
    ...(unpriced === 0 ? {} : { unpriced }),
  }
}

/** The day figures one transaction adds to: by model, and by key, user and tag. */
export interface DayFigures {
  readonly models: Map<string, ModelDayStats>
  readonly spend: Map<string, SpendFigures>
}

export const newDayFigures = (): DayFigures => ({ models: new Map(), spend: new Map() })

// The value comes last, so any text it holds (a user id with slashes) cannot reach another row.
const spendKeyOf = (projectId: string, day: string, dimension: SpendDimension, value: string) => `${projectId}/${day}/${dimension}/${value}`

/** Adds what a newly recorded entry counts for to the transaction's figures. */
export function addEntryFigures(stats: DayFigures, entry: LedgerEntry): void {
  // One flat row per project, day and model: small to re-encode.
  const statsKey = `${entry.projectId}/${entry.day}/${entry.model}`
  stats.models.set(
    statsKey,
    addStats(stats.models.get(statsKey) ?? ZERO_STATS, {
      requests: 1,
      tokens: entry.promptTokens + entry.completionTokens,
      costMicros: entry.costMicros,
      hits: entry.cacheHit ? 1 : 0,
      misses: entry.cacheHit || entry.passthrough === true ? 0 : 1,
      ...(entry.unpriced === undefined ? {} : { unpriced: 1 }),
    }),
  )
  const { figures, values } = spendOf(entry)
  for (const [dimension, value] of values) {
    const spendKey = spendKeyOf(entry.projectId, entry.day, dimension, value)
    stats.spend.set(spendKey, addSpend(stats.spend.get(spendKey) ?? ZERO_SPEND, figures))
  }
}

export function writeDayFigures({ modelDays, spendDays }: LedgerTables, stats: DayFigures): void {
  for (const [key, delta] of stats.models) modelDays.put(key, addStats(modelDays.get(key) ?? ZERO_STATS, delta))
  for (const [key, delta] of stats.spend) spendDays.put(key, addSpend(spendDays.get(key) ?? ZERO_SPEND, delta))
}

/** The day's figures by model; undefined when it had no request. */
export function readDayStats({ modelDays }: LedgerTables, projectId: string, day: string): DayStats | undefined {
  const prefix = `${projectId}/${day}/`
  let found = false
  let hits = 0
  let misses = 0
  const models: Record<string, ModelStats> = {}
  for (const { key, value } of modelDays.getRange({ start: prefix, end: `${prefix}\uffff` })) {
    found = true
    hits += value.hits
    misses += value.misses
    models[String(key).slice(prefix.length)] = {
      requests: value.requests,
      tokens: value.tokens,
      costMicros: value.costMicros,
      ...(value.unpriced === undefined ? {} : { unpriced: value.unpriced }),
    }
  }
  return found ? { hits, misses, models } : undefined
}

/** The day's figures of each key, user or tag that had a request. */
export function readSpendRows({ spendDays }: LedgerTables, projectId: string, day: string, dimension: SpendDimension): SpendRow[] {
  const prefix = spendKeyOf(projectId, day, dimension, '')
  const found: SpendRow[] = []
  for (const { key, value } of spendDays.getRange({ start: prefix, end: `${prefix}\uffff` })) found.push({ value: String(key).slice(prefix.length), ...value })
  return mergeSpendRows(found)
}
