// Spend by key, end user and tag: figures added up per project, day and value as each entry
// settles, in the transaction that writes the entry, so a report reads one row per value and day
// of its period, never the ledger's entries.
import type { LedgerEntry } from '../store/records.ts'

export const SPEND_DIMENSIONS = ['key', 'user', 'tag'] as const
export type SpendDimension = (typeof SPEND_DIMENSIONS)[number]

export interface SpendFigures {
  readonly requests: number
  readonly tokens: number
  readonly costMicros: number
}

/** One value's figures over a period. */
export interface SpendRow extends SpendFigures {
  readonly value: string
}

export const ZERO_SPEND: SpendFigures = { requests: 0, tokens: 0, costMicros: 0 }

export function addSpend(a: SpendFigures, b: SpendFigures): SpendFigures {
  return { requests: a.requests + b.requests, tokens: a.tokens + b.tokens, costMicros: a.costMicros + b.costMicros }
}

/** What one entry adds to each value it counts for: its key, its user if any, each of its tags. */
export function spendOf(entry: LedgerEntry): { readonly figures: SpendFigures; readonly values: ReadonlyArray<readonly [SpendDimension, string]> } {
  const values: Array<readonly [SpendDimension, string]> = [['key', entry.keyId]]
  if (entry.user !== undefined) values.push(['user', entry.user])
  if (entry.tags !== undefined) for (const tag of entry.tags) values.push(['tag', tag])
  return { figures: { requests: 1, tokens: entry.promptTokens + entry.completionTokens, costMicros: entry.costMicros }, values }
}

/** Rows of several days merged into one per value, the costliest first (then by value, for a stable order). */
export function mergeSpendRows(rows: Iterable<SpendRow>): SpendRow[] {
  const sums = new Map<string, SpendFigures>()
  for (const { value, ...figures } of rows) sums.set(value, addSpend(sums.get(value) ?? ZERO_SPEND, figures))
  return [...sums]
    .map(([value, figures]) => ({ value, ...figures }))
    .sort((a, b) => b.costMicros - a.costMicros || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
}
