// Metering's named databases in the LMDB store, their keys, and the month rows a transaction
// reads and writes once each.
import type { Database, Key } from 'lmdb'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { SpendFigures } from '../../logic/spend-breakdown.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import type { LedgerEntry, StreamCheckpoint } from '../records.ts'
import type { ModelDayStats } from './day-figures.ts'

export interface Reservation {
  readonly projectId: string
  readonly month: string
  readonly micros: number
  /** The request's key, when the key has a budget of its own that the hold counts against too. */
  readonly keyId?: string
  /** `pid:bootTime` of the process holding it, so a restart can release a dead process's holds. */
  readonly owner: string
}

export interface LedgerTables {
  readonly budgets: Database<BudgetRow, Key>
  readonly reservations: Database<Reservation, Key>
  readonly entries: Database<LedgerEntry, Key>
  readonly modelDays: Database<ModelDayStats, Key>
  readonly checkpoints: Database<StreamCheckpoint, Key>
  readonly spendDays: Database<SpendFigures, Key>
}

export function openTables(store: PluginStore): LedgerTables {
  return {
    budgets: store.open<BudgetRow>('budgets', { records: true }),
    reservations: store.open<Reservation>('reservations', { records: true }),
    entries: store.open<LedgerEntry>('ledger', { records: true }),
    modelDays: store.open<ModelDayStats>('model-day-stats', { records: true }),
    checkpoints: store.open<StreamCheckpoint>('stream-checkpoints', { records: true }),
    spendDays: store.open<SpendFigures>('spend-day-stats', { records: true }),
  }
}

// A month row's key is asked for on every hold, settlement and budget read, for the same few
// holders: the current month's are kept, not built (and flattened on lookup) each time.
let keptMonth = ''
const keptKeys = new Map<string, string>()

export function rowKey(holder: string, month: string): string {
  if (month !== keptMonth) {
    if (month < keptMonth) return `${holder}/${month}`
    keptMonth = month
    keptKeys.clear()
  }
  let key = keptKeys.get(holder)
  if (key === undefined) {
    key = `${holder}/${month}`
    keptKeys.set(holder, key)
  }
  return key
}
// Beside the requests' own reservations: a request id never starts with it.
export const leaseKey = (holder: string, projectId: string, month: string) => `lease/${holder}/${projectId}/${month}`

export const EMPTY_ROW: BudgetRow = { usedMicros: 0, reservedMicros: 0 }

/** The budget rows one transaction touches: read once, written once at its end. */
export class RowCache {
  readonly #rows = new Map<string, BudgetRow>()
  readonly #changed = new Set<string>()
  readonly #budgets: Database<BudgetRow, Key>

  constructor(budgets: Database<BudgetRow, Key>) {
    this.#budgets = budgets
  }

  get(key: string): BudgetRow {
    let row = this.#rows.get(key)
    if (row === undefined) {
      row = this.#budgets.get(key) ?? EMPTY_ROW
      this.#rows.set(key, row)
    }
    return row
  }

  set(key: string, row: BudgetRow): void {
    this.#rows.set(key, row)
    this.#changed.add(key)
  }

  writeAll(): void {
    for (const key of this.#changed) this.#budgets.put(key, this.#rows.get(key)!)
  }

  /** The rows written, by key. */
  *written(): Iterable<[string, BudgetRow]> {
    for (const key of this.#changed) yield [key, this.#rows.get(key)!]
  }
}
