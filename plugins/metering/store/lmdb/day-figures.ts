// The figures /api/usage reads, kept per project and day as entries settle: by model (requests,
// tokens, cost, hits and misses), and by key, user and tag; one flat row each, small to re-encode.
import { addSpend, mergeSpendRows, ZERO_SPEND, type SpendDimension, type SpendRow } from '../../logic/spend-breakdown.ts'
import type { DayStats, LedgerEntry, ModelStats } from '../records.ts'
import type { LedgerTables } from './tables.ts'

export interface ModelDayStats extends ModelStats {
  readonly hits: number
  readonly misses: number
}

const ZERO_STATS: ModelDayStats = { requests: 0, tokens: 0, costMicros: 0, hits: 0, misses: 0 }

// One literal with `unpriced` added after, only where there is some: no empty object spread in.
function addStats(a: ModelDayStats, b: ModelDayStats): ModelDayStats {
  const sum: { -readonly [K in keyof ModelDayStats]: ModelDayStats[K] } = {
    requests: a.requests + b.requests,
    tokens: a.tokens + b.tokens,
    costMicros: a.costMicros + b.costMicros,
    hits: a.hits + b.hits,
    misses: a.misses + b.misses,
  }
  const unpriced = (a.unpriced ?? 0) + (b.unpriced ?? 0)
  if (unpriced !== 0) sum.unpriced = unpriced
  return sum
}

/** What one transaction's entries add to a row, added up in place as they are applied. */
interface Tally {
  requests: number
  tokens: number
  costMicros: number
}

interface ModelTally extends Tally {
  hits: number
  misses: number
  unpriced: number
}

/** The day figures one transaction adds to: by model, and by key, user and tag. */
export interface DayFigures {
  readonly models: Map<string, ModelTally>
  readonly spend: Map<string, Tally>
}

export const newDayFigures = (): DayFigures => ({ models: new Map(), spend: new Map() })

// The value comes last, so any text it holds (a user id with slashes) cannot reach another row.
const spendKeyOf = (projectId: string, day: string, dimension: SpendDimension, value: string) => `${projectId}/${day}/${dimension}/${value}`

function addSpendOf(spend: Map<string, Tally>, key: string, tokens: number, costMicros: number): void {
  const tally = spend.get(key)
  if (tally === undefined) {
    spend.set(key, { requests: 1, tokens, costMicros })
    return
  }
  tally.requests++
  tally.tokens += tokens
  tally.costMicros += costMicros
}

/**
 * Adds what a newly recorded entry counts for to the transaction's figures: one row of them per
 * project, day and model, and per key, user and tag (see spendOf), each tallied in place.
 */
export function addEntryFigures(stats: DayFigures, entry: LedgerEntry): void {
  const { projectId, day, costMicros } = entry
  const tokens = entry.promptTokens + entry.completionTokens
  const statsKey = `${projectId}/${day}/${entry.model}`
  let model = stats.models.get(statsKey)
  if (model === undefined) {
    model = { requests: 0, tokens: 0, costMicros: 0, hits: 0, misses: 0, unpriced: 0 }
    stats.models.set(statsKey, model)
  }
  model.requests++
  model.tokens += tokens
  model.costMicros += costMicros
  if (entry.cacheHit) model.hits++
  else if (entry.passthrough !== true) model.misses++
  if (entry.unpriced !== undefined) model.unpriced++
  addSpendOf(stats.spend, spendKeyOf(projectId, day, 'key', entry.keyId), tokens, costMicros)
  if (entry.user !== undefined) addSpendOf(stats.spend, spendKeyOf(projectId, day, 'user', entry.user), tokens, costMicros)
  if (entry.tags !== undefined) for (const tag of entry.tags) addSpendOf(stats.spend, spendKeyOf(projectId, day, 'tag', tag), tokens, costMicros)
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
