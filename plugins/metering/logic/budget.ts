// A month's budget figures in integer micro-dollars, and the one rule of coverage every store
// admits by: a budget covers an amount when the amount is no more than what the month has left
// for new holds. Pure: the rows come from the store, the decision is made here.

export interface BudgetRow {
  readonly usedMicros: number
  readonly reservedMicros: number
  /** What providers counted beyond the holds this month: recorded, never charged (see docs/budgets-and-metering.md). */
  readonly overageMicros?: number
  /** Usage events already sent this month (80, 90 for the thresholds, 100 for the limit): each fires once. */
  readonly notified?: readonly number[]
}

/** What a month has left for new holds: its limit less what is spent and what is held. */
export function availableMicros(row: Pick<BudgetRow, 'usedMicros' | 'reservedMicros'>, limitMicros: number): number {
  return limitMicros - row.usedMicros - row.reservedMicros
}

/** Whether `available` covers `micros`: an amount exactly equal to what is left is covered. */
export function covers(available: number, micros: number): boolean {
  return micros <= available
}

/** What the answer reports as left of the budget: the limit less what is spent, never below nothing. */
export function remainingMicros(usedMicros: number, limitMicros: number): number {
  return Math.max(0, limitMicros - usedMicros)
}
