// The metering store on LMDB (index.ts wraps it). Money is kept in integer micro-dollars so
// sums are exact. Every write is one LMDB transaction, which also serializes processes sharing the
// environment: a reservation can never see a stale budget, and a settled request is written
// exactly once (its ledger entry is keyed by request id and checked inside the same transaction).
// A settlement is journaled first (settlement-journal.ts) and known to this process at once; its
// commit follows.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { SELF_OWNER } from '../../../../proxy/stores/process-owner.ts'
import type { SpendDimension } from '../../logic/spend-breakdown.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import { admitHold, grantLease, type LeaseResult, type ReserveResult } from '../../logic/admit.ts'
import type { LeasedHold, LedgerEntry, Settled, StreamCheckpoint } from '../records.ts'
import { noteLimit, shrinkLease } from './apply.ts'
import { readDayStats, readSpendRows } from './day-figures.ts'
import { settleDead, type RecoveredCounts } from './recovery.ts'
import { deadJournals, openJournal, removeJournal, type JournalLine, type JournalMark } from './settlement-journal.ts'
import { PendingCharges } from './pending-charges.ts'
import { settlementQueue, type QueuedSettlement } from './settlement-queue.ts'
import { EMPTY_ROW, leaseKey, openTables, rowKey, RowCache, type Reservation } from './tables.ts'

/** `alone`: this process is the only one writing the store (no --workers); see pending-charges.ts. */
export function createLedger(store: PluginStore, events?: EventOutbox, owner = SELF_OWNER, alone = false) {
  const tables = openTables(store)
  const { budgets, reservations, entries, checkpoints } = tables
  const journal = openJournal(store.directory, owner)
  const pending = new PendingCharges(tables, alone)
  const queue = settlementQueue({ store, tables, events, owner, pending, journal })
  // Streams whose first checkpoint this process recorded and has not settled: the journal line it
  // went to, `in-turn` while it waits for the turn's write, or `stored` when the journal could not
  // be written and it went to the store instead.
  const starts = new Map<string, JournalMark | 'in-turn' | 'stored'>()
  const queueJournaled = (mark: JournalMark | undefined, item: QueuedSettlement) => {
    item.mark = mark
    // Its stream's first checkpoint went in the same write: one more line of that file to commit.
    if (item.startInTurn) item.startMark = mark
    queue.enqueue(item)
  }
  const startWritten = (mark: JournalMark | undefined, { entry }: StreamCheckpoint) => {
    // Settled in the turn it started: its settlement, in the same write, holds the mark.
    if (starts.get(entry.id) !== 'in-turn') return
    starts.set(entry.id, mark ?? 'stored')
  }

  /** The row as a journaled entry leaves it; undefined when the store cannot be read (closing). */
  function rowAfter(entry: LedgerEntry): BudgetRow | undefined {
    try {
      return pending.budget(entry.projectId, entry.month)
    } catch {
      return undefined
    }
  }

  return {
    /** The month's row, with what this process settled and has not yet committed counted as used. */
    budget: (holder: string, month: string) => pending.budget(holder, month),

    /**
     * Holds `reservation.micros` of the month's budget in the store, where every process sharing it
     * sees the hold; of the key's month too (`keyLimitMicros`) when the reservation names its key.
     */
    reserve(requestId: string, reservation: Reservation, limitMicros: number, keyLimitMicros?: number): Promise<ReserveResult> {
      const { projectId, month, micros, keyId } = reservation
      const keys = keyId === undefined ? [rowKey(projectId, month)] : [rowKey(projectId, month), rowKey(keyId, month)]
      return pending.forgetRows(
        store.transaction((): ReserveResult => {
          const row = budgets.get(keys[0]!) ?? EMPTY_ROW
          const keyRow = keyId === undefined ? undefined : (budgets.get(keys[1]!) ?? EMPTY_ROW)
          const admitted = admitHold(micros, { row, limitMicros }, keyRow === undefined ? undefined : { row: keyRow, limitMicros: keyLimitMicros ?? 0 })
          if (!admitted.ok) {
            if (admitted.byKey !== true) noteLimit(tables, events, projectId, month, limitMicros, micros, row)
            return admitted
          }
          if (keyRow !== undefined) budgets.put(keys[1]!, { ...keyRow, reservedMicros: keyRow.reservedMicros + micros })
          budgets.put(keys[0]!, { ...row, reservedMicros: row.reservedMicros + micros })
          reservations.put(requestId, reservation)
          return admitted
        }),
        keys,
      )
    },

    /** Sends usage.limit_exceeded for a refusal decided outside the store, once a month. */
    limitExceeded(projectId: string, month: string, limitMicros: number, requestedMicros: number): Promise<void> {
      const key = rowKey(projectId, month)
      return pending.forgetRows(
        store.transaction(() => noteLimit(tables, events, projectId, month, limitMicros, requestedMicros, budgets.get(key) ?? EMPTY_ROW)),
        [key],
      )
    },

    /**
     * Adds to this process's lease on the month `needMicros` and, of what is left beyond them, as
     * much as `spare` gives (decided inside the transaction, from what the month has left); or,
     * when the month cannot cover `needMicros`, adds nothing and notes the limit as reserve() does.
     */
    growLease(projectId: string, month: string, needMicros: number, limitMicros: number, spare: (beyondMicros: number) => number): Promise<LeaseResult> {
      return store.transaction((): LeaseResult => {
        const key = rowKey(projectId, month)
        const row = budgets.get(key) ?? EMPTY_ROW
        const granted = grantLease(row, limitMicros, needMicros, spare)
        if (!('grantedMicros' in granted)) {
          noteLimit(tables, events, projectId, month, limitMicros, needMicros, row)
          return granted
        }
        const { grantedMicros } = granted
        budgets.put(key, { ...row, reservedMicros: row.reservedMicros + grantedMicros })
        const id = leaseKey(owner, projectId, month)
        const lease = reservations.get(id)
        reservations.put(id, { projectId, month, micros: (lease?.micros ?? 0) + grantedMicros, owner })
        return { grantedMicros }
      })
    },

    /**
     * Gives back to the month what `micros()` says this process's lease holds unused, asked inside
     * the transaction so that holds carved or settled meanwhile count; resolves with the amount.
     */
    returnLease(projectId: string, month: string, micros: () => number): Promise<number> {
      return store.transaction(() => {
        const id = leaseKey(owner, projectId, month)
        const lease = reservations.get(id)
        const returned = Math.min(Math.max(0, micros()), lease?.micros ?? 0)
        if (lease === undefined || returned === 0) return 0
        const rows = new RowCache(budgets)
        shrinkLease(tables, id, lease, returned, rows)
        rows.writeAll()
        return returned
      })
    },

    /**
     * Records a finished request and releases its reservation; a second call for the same id
     * changes nothing. Crossing 80% or 90% of `limitMicros` sends its usage event once a month.
     */
    settle(entry: LedgerEntry, limitMicros: number, heldInStore = true, checkpointed = false, leased?: LeasedHold): Settled {
      const start = starts.get(entry.id)
      if (start !== undefined) starts.delete(entry.id)
      const line: JournalLine = { entry, limitMicros, heldInStore, checkpointed: checkpointed || start === 'stored' }
      if (leased !== undefined) (line as { leased?: LeasedHold }).leased = leased
      // Counted at once, as the journal write with this turn's other settlements will make it
      // durable; should that write fail, the commit still applies it.
      if (!pending.has(entry.id)) pending.journaled(entry)
      const item: QueuedSettlement = {
        line,
        mark: undefined,
        startMark: start === 'stored' || start === 'in-turn' ? undefined : start,
        startInTurn: start === 'in-turn',
        resolve: undefined!,
        reject: undefined!,
      }
      const committed = new Promise<BudgetRow>((resolve, reject) => {
        item.resolve = resolve
        item.reject = reject
      })
      // One promise for the turn's lines says when they are written; the item goes to the queue then.
      return { row: rowAfter(entry), committed, written: journal.appendInTurn(line, queueJournaled, item) }
    },

    /** Resolves once every settlement made so far is committed (or refused). */
    idle: () => journal.turnWritten().then(() => queue.idle()),

    /** The journal stays only if a commit failed: then the next start replays it. */
    close(): void {
      journal.close()
    },

    /** Records the progress of running streams in one transaction; a stream already settled is skipped. */
    checkpoint,

    /**
     * Records the first checkpoint of streams just admitted (their prompts), so that a crash from
     * now on settles each to at least that: journaled with one write (this turn's settlements' when
     * one is pending, else a write of their own now), durable like a settlement, and done with once
     * the stream is settled. Where the journal cannot be written, checkpointed in the store instead.
     */
    startStreams(progress: readonly StreamCheckpoint[]): Promise<void> {
      if (journal.turnPending()) {
        let written!: Promise<boolean>
        for (const each of progress) {
          starts.set(each.entry.id, 'in-turn')
          written = journal.appendInTurn(startLineOf(each), startWritten, each)
        }
        return written.then((ok) => (ok ? undefined : checkpoint(progress.filter(({ entry }) => starts.get(entry.id) === 'stored'))))
      }
      let mark: JournalMark
      try {
        mark = journal.appendAll(progress.map(startLineOf))
      } catch {
        for (const { entry } of progress) starts.set(entry.id, 'stored')
        return checkpoint(progress)
      }
      for (const { entry } of progress) starts.set(entry.id, mark)
      return Promise.resolve()
    },

    /**
     * Cleans up after processes that are gone (a crash leaves their state behind): a stream they
     * were running is settled to its last checkpoint with the outcome `recovered` (the one in the
     * store, else the first one they journaled), and every other reservation they held is released.
     */
    recover(isLive: (owner: string) => boolean): Promise<RecoveredCounts> {
      const journals = deadJournals(store.directory, isLive)
      const result = pending.forgetRows(store.transaction(() => settleDead(tables, events, owner, journals, isLive)))
      return result.then((counts) => {
        for (const found of journals) removeJournal(found.path)
        return counts
      })
    },

    checkpointCount(): number {
      return checkpoints.getKeysCount()
    },

    dayStats: (projectId: string, day: string) => readDayStats(tables, projectId, day),

    /** The day's figures of each key, user or tag that had a request. */
    spendRows: (projectId: string, day: string, dimension: SpendDimension) => readSpendRows(tables, projectId, day, dimension),

    entry(id: string): LedgerEntry | undefined {
      return pending.entry(id) ?? entries.get(id)
    },

    reservationCount(): number {
      return reservations.getKeysCount()
    },
  }

  function startLineOf({ entry, limitMicros }: StreamCheckpoint): JournalLine {
    return { entry, limitMicros, heldInStore: true, checkpointed: false, started: true }
  }

  function checkpoint(progress: readonly StreamCheckpoint[]): Promise<void> {
    return store.transaction(() => {
      for (const each of progress) {
        if (!entries.doesExist(each.entry.id)) checkpoints.put(each.entry.id, each)
      }
    })
  }
}

export type Ledger = ReturnType<typeof createLedger>
