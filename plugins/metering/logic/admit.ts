// Whether a request may be admitted: its hold against what its project's month has left and,
// where its key has a budget of its own, what the key's month has left. The same decision for a
// hold kept in memory, in LMDB or in PostgreSQL, and for a budget lease growing by a hold.
import { availableMicros, covers, type BudgetRow } from './budget.ts'

/** `byKey`: refused by the key's own budget, not its project's. */
export type ReserveResult = { readonly ok: true } | { readonly ok: false; readonly availableMicros: number; readonly byKey?: true }

/** What a lease asked of the month got: the amount added to it, or what was left when it could not be. */
export type LeaseResult = { readonly grantedMicros: number } | { readonly availableMicros: number }

/** A budget and the month's row it is checked against. */
export interface BudgetFigures {
  readonly row: Pick<BudgetRow, 'usedMicros' | 'reservedMicros'>
  readonly limitMicros: number
}

export const ADMITTED: ReserveResult = { ok: true }

/**
 * Admits a hold of `micros` only if the project's budget covers it and, when `key` is given, the
 * key's too. The project's budget is asked first: a refusal by both is the project's (the one
 * that notes the month's limit).
 */
export function admitHold(micros: number, project: BudgetFigures, key?: BudgetFigures): ReserveResult {
  const forProject = availableMicros(project.row, project.limitMicros)
  if (!covers(forProject, micros)) return { ok: false, availableMicros: Math.max(0, forProject) }
  if (key === undefined) return ADMITTED
  const forKey = availableMicros(key.row, key.limitMicros)
  if (!covers(forKey, micros)) return { ok: false, availableMicros: Math.max(0, forKey), byKey: true }
  return ADMITTED
}

/**
 * What a budget lease asking `needMicros` of the month gets: them and, of what the month has left
 * beyond them, what `spare` gives; or nothing, with what was left, when the month cannot cover them.
 */
export function grantLease(row: BudgetFigures['row'], limitMicros: number, needMicros: number, spare: (beyondMicros: number) => number): LeaseResult {
  const available = availableMicros(row, limitMicros)
  if (!covers(available, needMicros)) return { availableMicros: Math.max(0, available) }
  return { grantedMicros: needMicros + spare(available - needMicros) }
}
