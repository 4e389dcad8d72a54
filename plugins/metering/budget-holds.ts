// Where a request's worst-case cost is held while it runs. One process alone on its store holds
// in memory: a check and an add on one thread cannot interleave, and it saves a store transaction
// per request. Processes sharing a store (serve --workers) carve holds from budget leases every
// process sees (budget-leases.ts). Either way the settled spend is read from the store, committed.
import type { Ledger, ReserveResult } from './ledger.ts'

export interface Hold {
  readonly requestId: string
  readonly projectId: string
  readonly month: string
  readonly micros: number
}

export interface BudgetHolds {
  reserve(hold: Hold, limitMicros: number): ReserveResult | Promise<ReserveResult>
  /** Call once the request is settled (its ledger entry committed) or abandoned. */
  release(hold: Hold): void
}

export function memoryHolds(ledger: Ledger, onRefusal: (hold: Hold, limitMicros: number) => void): BudgetHolds {
  const held = new Map<string, number>()
  const keyOf = (hold: Hold) => `${hold.projectId}/${hold.month}`
  return {
    reserve(hold, limitMicros) {
      const key = keyOf(hold)
      const reserved = held.get(key) ?? 0
      const available = limitMicros - ledger.budget(hold.projectId, hold.month).usedMicros - reserved
      if (hold.micros > available) {
        onRefusal(hold, limitMicros)
        return { ok: false, availableMicros: Math.max(0, available) }
      }
      held.set(key, reserved + hold.micros)
      return { ok: true }
    },
    release(hold) {
      // Released only after the charge is committed: for a moment both count, never neither.
      const key = keyOf(hold)
      const left = (held.get(key) ?? 0) - hold.micros
      if (left > 0) held.set(key, left)
      else held.delete(key)
    },
  }
}
