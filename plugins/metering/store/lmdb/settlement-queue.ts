// Settlements waiting for the store's next commit group, applied together by one transaction.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import { applySettlement } from './apply.ts'
import { newDayFigures, writeDayFigures } from './day-figures.ts'
import type { PendingCharges } from './pending-charges.ts'
import type { JournalLine, JournalMark, SettlementJournal } from './settlement-journal.ts'
import { RowCache, type LedgerTables } from './tables.ts'

export interface QueuedSettlement {
  readonly line: JournalLine
  /** Where it was journaled; absent when the journal could not be written (set once the turn's write is done). */
  mark: JournalMark | undefined
  /** Where the stream's first checkpoint was journaled, done with once this settlement is committed. */
  startMark: JournalMark | undefined
  /** The stream's first checkpoint waits for the same write as this settlement: its mark is this one's. */
  readonly startInTurn: boolean
  resolve: (row: BudgetRow) => void
  reject: (error: unknown) => void
}

interface SettlementQueueDeps {
  readonly store: PluginStore
  readonly tables: LedgerTables
  readonly events: EventOutbox | undefined
  /** This process: the writer whose lease a leased hold came from. */
  readonly owner: string
  readonly pending: PendingCharges
  readonly journal: SettlementJournal
}

export interface SettlementQueue {
  /** Queues the settlement (journaled at `mark`, when it could be); it resolves with its month row once committed. */
  enqueue(item: QueuedSettlement): void
  /** Resolves once every settlement queued so far is committed (or refused). */
  idle(): Promise<void>
}

export function settlementQueue({ store, tables, events, owner, pending, journal }: SettlementQueueDeps): SettlementQueue {
  const { budgets, entries } = tables
  let queued: QueuedSettlement[] = []
  let lastCommit: Promise<unknown> = Promise.resolve()

  // Settlements queue up until the store's next commit group (proxy/stores/group-commit.ts), and
  // its transaction applies all of them in order: each budget row and day-stats row is read and
  // written once per batch instead of once per request (in the cache-hit profile, the settle's
  // cost fell by about a third), and processes sharing the store take one commit per window, not
  // one per request. Nothing waits for it but a settlement the journal could not take.
  function commitQueued(): void {
    let batch: QueuedSettlement[] | undefined
    // Through a promise, so a store that throws at once (closed) rejects like one that fails later.
    const flight = pending.startBatch()
    let written: RowCache | undefined
    const commit = new Promise<BudgetRow[]>((resolve) =>
      resolve(
        store.grouped(() => {
          batch = queued
          queued = []
          const rows = new RowCache(budgets)
          const stats = newDayFigures()
          const settled = batch.map((item) => {
            const { entry } = item.line
            const isNew = !entries.doesExist(entry.id)
            const row = applySettlement(tables, events, item.line, rows, stats, owner, !isNew)
            pending.batched(flight, entry, isNew)
            return row
          })
          rows.writeAll()
          writeDayFigures(tables, stats)
          written = rows
          pending.ran(flight)
          return settled
        }),
      ),
    )
    lastCommit = commit
    commit.then(
      (settled) => {
        pending.committed(flight, written!)
        batch!.forEach((item, i) => {
          if (item.mark !== undefined) journal.committed(item.mark)
          // Also when the journal failed: the charge was counted from its settlement on.
          pending.entryCommitted(item.line.entry)
          if (item.startMark !== undefined) journal.committed(item.startMark)
          item.resolve(settled[i]!)
        })
      },
      (error: unknown) => {
        // A transaction refused before it ran leaves its items queued. Their journal lines stay,
        // counted here as settled, for the next start to replay.
        const lost = batch ?? queued.splice(0)
        for (const item of lost) item.reject(error)
      },
    )
  }

  function enqueue(item: QueuedSettlement): void {
    queued.push(item)
    if (queued.length === 1) commitQueued()
  }

  return {
    enqueue,
    idle: () =>
      lastCommit.then(
        () => undefined,
        () => undefined,
      ),
  }
}
