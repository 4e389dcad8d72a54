// What settling a request does to the money: it charges the provider's count up to the hold
// (beyond it, overage, recorded and not charged), adds the charge to the month's spend, notes the
// thresholds the spend crosses, and gives the hold back. Pure: the stores apply the rows.
import type { BudgetRow } from './budget.ts'

/** Spend thresholds announced once a month (usage.threshold_reached), in percent of the limit. */
const THRESHOLDS = [80, 90] as const
/** Noted once a month when a hold is refused (usage.limit_exceeded). */
export const LIMIT = 100

/** What a request is charged for a provider's count: at most its hold. */
export interface Charge {
  readonly costMicros: number
  /** The provider's count beyond the hold, when there was any. */
  readonly overageMicros?: number
}

/**
 * A provider may count more than the hold allowed for (another tokenizer, framing it adds): the
 * charge stops at the hold, so concurrent requests can never overspend the budget. Without a hold
 * (budgets not enforced), all of it.
 */
export function chargeFor(costMicros: number, holdMicros: number | undefined): Charge {
  if (holdMicros === undefined || costMicros <= holdMicros) return { costMicros }
  return { costMicros: holdMicros, overageMicros: costMicros - holdMicros }
}

const NONE: readonly number[] = Object.freeze([])

/** The thresholds a month's spend has reached that were not announced yet; none without a limit. */
export function crossedThresholds(usedMicros: number, limitMicros: number, notified: readonly number[] = NONE): readonly number[] {
  // Most charges leave the spend below the first threshold: no array made for them.
  if (limitMicros <= 0 || usedMicros * 100 < limitMicros * THRESHOLDS[0]) return NONE
  return THRESHOLDS.filter((t) => usedMicros * 100 >= limitMicros * t && !notified.includes(t))
}

/** A project's month once a charge counts, and the thresholds it crossed, now noted in the row. */
export function chargedRow(row: BudgetRow, charge: Charge, limitMicros: number): { readonly row: BudgetRow; readonly crossed: readonly number[] } {
  const usedMicros = row.usedMicros + charge.costMicros
  const crossed = crossedThresholds(usedMicros, limitMicros, row.notified)
  const notified = crossed.length > 0 ? [...(row.notified ?? []), ...crossed] : row.notified
  const overageMicros = (row.overageMicros ?? 0) + (charge.overageMicros ?? 0)
  // One literal with the optional fields added after: no empty objects spread in.
  const next: { -readonly [K in keyof BudgetRow]: BudgetRow[K] } = { usedMicros, reservedMicros: row.reservedMicros }
  if (notified !== undefined) next.notified = notified
  if (overageMicros !== 0) next.overageMicros = overageMicros
  return { row: next, crossed }
}

/** A key's month once a charge counts: a key has no thresholds, only its spend. */
export function spentRow(row: BudgetRow, costMicros: number): BudgetRow {
  return { ...row, usedMicros: row.usedMicros + costMicros }
}

/** A month with `micros` of holds given back; what is held never goes below nothing. */
export function releasedRow(row: BudgetRow, micros: number): BudgetRow {
  return { ...row, reservedMicros: Math.max(0, row.reservedMicros - micros) }
}

/** The month with the limit's notice noted, or undefined when it was noted already this month. */
export function limitNoted(row: BudgetRow): BudgetRow | undefined {
  if ((row.notified ?? []).includes(LIMIT)) return undefined
  return { ...row, notified: [...(row.notified ?? []), LIMIT] }
}
