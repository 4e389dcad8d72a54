// What this process settled and has not yet committed, counted on top of the stored month rows so
// that a journaled charge counts at once. Charges not yet in a transaction are counted as they
// are; those of a transaction that ran count only until its commit is visible (its marker entry
// readable), which comes a moment before the commit's promise settles: counting them until then
// would count them twice.
import type { BudgetRow } from '../../logic/budget.ts'
import type { LedgerEntry } from '../records.ts'
import { EMPTY_ROW, rowKey, type LedgerTables, type RowCache } from './tables.ts'

/** The charges of one settling transaction, counted until its commit is visible. */
export interface InFlightBatch {
  /** An entry the transaction wrote: readable once its commit is. */
  marker: string | undefined
  readonly micros: Map<string, number>
}

function addMicros(micros: Map<string, number>, key: string, delta: number): void {
  const sum = (micros.get(key) ?? 0) + delta
  if (sum === 0) micros.delete(key)
  else micros.set(key, sum)
}

export class PendingCharges {
  readonly #tables: LedgerTables
  readonly #entries = new Map<string, LedgerEntry>()
  readonly #unbatched = new Map<string, number>()
  readonly #inFlight = new Set<InFlightBatch>()
  // The month rows as this process alone last committed them: set from what a settling
  // transaction wrote once its commit settles (when its in-flight charges stop counting), and read
  // from the store only while no transaction is in flight, so that no charge counts twice.
  // Another write to a row (a limit's notice, a recovery) drops it, to be read again.
  readonly #committedRows: Map<string, BudgetRow> | undefined

  /**
   * `alone`: this process is the only one writing the store (no --workers), so the month rows it
   * committed are the stored ones, and are kept here instead of read back on every request.
   */
  constructor(tables: LedgerTables, alone: boolean) {
    this.#tables = tables
    this.#committedRows = alone ? new Map() : undefined
  }

  /** The month's row, with what this process settled and has not yet committed counted as used. */
  budget(holder: string, month: string): BudgetRow {
    const key = rowKey(holder, month)
    const known = this.#committedRows?.get(key)
    if (known !== undefined) return this.#withPending(key, known, false)
    const row = this.#tables.budgets.get(key) ?? EMPTY_ROW
    if (this.#committedRows !== undefined && this.#inFlight.size === 0) this.#committedRows.set(key, row)
    return this.#withPending(key, row, true)
  }

  /**
   * The row with what is settled and not yet committed counted as used. A stored row read while a
   * transaction is in flight may already hold its charges: `stored` checks for that.
   */
  #withPending(key: string, row: BudgetRow, stored: boolean): BudgetRow {
    let pending = this.#unbatched.get(key) ?? 0
    for (const batch of this.#inFlight) {
      const micros = batch.micros.get(key)
      if (micros !== undefined && !(stored && this.#tables.entries.doesExist(batch.marker!))) pending += micros
    }
    return pending === 0 ? row : { ...row, usedMicros: row.usedMicros + pending }
  }

  /** After a write to month rows outside a settling transaction: they are read again. */
  forgetRows<T>(written: Promise<T>, keys?: readonly string[]): Promise<T> {
    const committedRows = this.#committedRows
    if (committedRows === undefined) return written
    const forget = () => {
      if (keys === undefined) committedRows.clear()
      else for (const key of keys) committedRows.delete(key)
    }
    return written.finally(forget)
  }

  has(id: string): boolean {
    return this.#entries.has(id)
  }

  entry(id: string): LedgerEntry | undefined {
    return this.#entries.get(id)
  }

  /** A settlement was journaled: its charge counts from now on, for its project and its key. */
  journaled(entry: LedgerEntry): void {
    this.#entries.set(entry.id, entry)
    addMicros(this.#unbatched, rowKey(entry.projectId, entry.month), entry.costMicros)
    addMicros(this.#unbatched, rowKey(entry.keyId, entry.month), entry.costMicros)
  }

  /** A settling transaction begins: its charges count as in flight once it has run. */
  startBatch(): InFlightBatch {
    return { marker: undefined, micros: new Map() }
  }

  /** A settlement the transaction applies; `isNew`: its entry was not recorded before. */
  batched(flight: InFlightBatch, entry: LedgerEntry, isNew: boolean): void {
    if (this.#entries.get(entry.id) !== entry) return
    this.#batchedOf(flight, rowKey(entry.projectId, entry.month), entry.costMicros, isNew)
    this.#batchedOf(flight, rowKey(entry.keyId, entry.month), entry.costMicros, isNew)
    if (isNew) flight.marker ??= entry.id
  }

  /** Moves a settlement's charge to a month row from the unbatched count to the transaction's. */
  #batchedOf(flight: InFlightBatch, key: string, micros: number, isNew: boolean): void {
    addMicros(this.#unbatched, key, -micros)
    // A repeated id charges nothing: it leaves the count here.
    if (isNew) addMicros(flight.micros, key, micros)
  }

  /** The transaction ran: its charges count until its commit settles. */
  ran(flight: InFlightBatch): void {
    if (flight.micros.size > 0) this.#inFlight.add(flight)
  }

  /** The transaction's commit settled: the rows it wrote are the stored ones. */
  committed(flight: InFlightBatch, written: RowCache): void {
    this.#inFlight.delete(flight)
    if (this.#committedRows !== undefined) for (const [key, row] of written.written()) this.#committedRows.set(key, row)
  }

  /** A journaled settlement's commit settled: its entry is read from the store from now on. */
  entryCommitted(entry: LedgerEntry): void {
    if (this.#entries.get(entry.id) === entry) this.#entries.delete(entry.id)
  }
}
