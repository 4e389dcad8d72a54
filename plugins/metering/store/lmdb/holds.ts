// Where a request's worst-case cost is held while it runs. One process alone on its store holds
// in memory: a check and an add on one thread cannot interleave, and it saves a store transaction
// per request. Processes sharing a store (serve --workers) carve holds from budget leases every
// process sees (../leases.ts), or, for a key with a budget of its own, hold in the store.
// Either way the settled spend is read from the store, committed.
import { admitHold } from '../../logic/admit.ts'
import type { BudgetHolds, Hold } from '../records.ts'
import type { Ledger } from './ledger.ts'
import { rowKey } from './tables.ts'
import { SELF_OWNER } from '../../../../proxy/stores/process-owner.ts'

/**
 * Each hold a reservation of its own in the store, in a transaction every process sees: for holds
 * whose key has a budget of its own, which budget leases (kept by project) do not cover.
 */
export function storeHolds(ledger: Ledger): BudgetHolds {
  return {
    reserve: (hold, limitMicros) =>
      ledger.reserve(
        hold.requestId,
        { projectId: hold.projectId, month: hold.month, micros: hold.micros, owner: SELF_OWNER, ...(hold.key === undefined ? {} : { keyId: hold.key.keyId }) },
        limitMicros,
        hold.key?.limitMicros,
      ),
    // ledger.settle removes the stored hold in the same transaction as the charge.
    release: () => undefined,
  }
}

export function memoryHolds(ledger: Ledger, onRefusal: (hold: Hold, limitMicros: number) => void): BudgetHolds {
  // By budget row: a project's month, and a key's month where the key has a budget of its own.
  const held = new Map<string, number>()
  const figures = (holder: string, month: string, limitMicros: number) => ({
    row: { usedMicros: ledger.budget(holder, month).usedMicros, reservedMicros: held.get(rowKey(holder, month)) ?? 0 },
    limitMicros,
  })
  const add = (holder: string, month: string, micros: number) => {
    const row = rowKey(holder, month)
    const sum = (held.get(row) ?? 0) + micros
    if (sum > 0) held.set(row, sum)
    else held.delete(row)
  }
  return {
    reserve(hold, limitMicros) {
      const key = hold.key === undefined ? undefined : figures(hold.key.keyId, hold.month, hold.key.limitMicros)
      const admitted = admitHold(hold.micros, figures(hold.projectId, hold.month, limitMicros), key)
      if (!admitted.ok) {
        if (admitted.byKey !== true) onRefusal(hold, limitMicros)
        return admitted
      }
      if (hold.key !== undefined) add(hold.key.keyId, hold.month, hold.micros)
      add(hold.projectId, hold.month, hold.micros)
      return admitted
    },
    release(hold) {
      // Released only after the charge is committed: for a moment both count, never neither.
      add(hold.projectId, hold.month, -hold.micros)
      if (hold.key !== undefined) add(hold.key.keyId, hold.month, -hold.micros)
    },
  }
}
