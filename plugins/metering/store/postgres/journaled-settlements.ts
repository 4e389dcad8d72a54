// Settlements on PostgreSQL made durable on this host first, committed after the answer: each is
// appended to the settlement journal of the LMDB path (../lmdb/settlement-journal.ts, one write(2)
// for the settlements of a turn of the event loop, in the kernel once it returns, so it survives a
// kill -9; the answer waits for it) and committed to PostgreSQL in turns
// off the answer path (a project's settlements that arrive while one commit runs share the next).
// A line is retired once its commit returns; one whose commit failed (the database away) is
// retried, and the journals of processes that are gone are replayed at start. The ledger entry is
// keyed by request id, so a line committed twice (a crash between the commit and the retirement)
// is counted once.
import { DependencyUnavailableError } from '../../../../proxy/pipeline/errors.ts'
import type { BudgetRow } from '../../logic/budget.ts'
import { deadJournals, openJournal, removeJournal, type DeadJournal, type JournalLine, type JournalMark } from '../lmdb/settlement-journal.ts'
import type { LedgerEntry, Settled } from '../records.ts'
import { leaseIdOf } from './leases.ts'
import type { Settlement } from './settlement.ts'

/** Commits settlements of one project in turns; resolves with each one's month row. */
type CommitInTurn = (projectId: string, settlement: Settlement) => Promise<BudgetRow>
/** Commits settlements of any projects in one transaction. */
type CommitNow = (batch: readonly Settlement[]) => Promise<readonly BudgetRow[]>

interface JournaledSettlementsDeps {
  /** Where this gateway's journal files go: its data directory, beside its LMDB store. */
  readonly directory: string
  readonly owner: string
  readonly commitInTurn: CommitInTurn
  readonly commitNow: CommitNow
  /** Whether a process is still running: its journal is its own to commit. */
  readonly isLive: (owner: string) => boolean
  /** Where each commit goes, so that idle() and a stop wait for it. */
  readonly track: <T>(work: Promise<T>) => Promise<T>
}

export interface JournaledSettlements {
  /** Journals the settlement with its turn's others and queues its commit; the row is known at once when the month's row is, durable once `written` says the line is. */
  settle(settlement: Settlement, line: JournalLine): Settled
  /** The month's row as read from PostgreSQL, with this gateway's journaled charges not yet committed counted as used. */
  withPending(projectId: string, month: string, row: BudgetRow): BudgetRow
  /** Notes the month's row as a transaction just read it, so that the next settlement need not wait for its commit. */
  noteRow(projectId: string, month: string, row: BudgetRow): void
  /** Commits the settlements that failed before; stops at the first the database is away for. */
  retryUnsettled(): Promise<void>
  /** Commits the journals of processes that are gone and removes them. */
  replayDead(): Promise<{ replayed: number; unreadable: number }>
  /** Retires the journal file if every line is committed; a file with lines left is replayed at the next start. */
  close(): void
}

// Settlements whose commit failed, kept in memory to be retried, up to this many; beyond it they
// stay in the journal alone, committed at the next start.
const MAX_UNSETTLED = 10_000
const REPLAY_BATCH = 64

const keyOf = (projectId: string, month: string) => `${projectId}\u0000${month}`

export function journaledSettlements({ directory, owner, commitInTurn, commitNow, isLive, track }: JournaledSettlementsDeps): JournaledSettlements {
  const journal = openJournal(directory, owner)
  /** Each month's row as PostgreSQL last returned it to this gateway. */
  const known = new Map<string, BudgetRow>()
  /** Of each month, what this gateway journaled and has not yet committed. */
  const pendingMicros = new Map<string, number>()
  const unsettled = new Map<string, { settlement: Settlement; mark: JournalMark | undefined }>()
  let retrying: Promise<void> | undefined

  function addPending(entry: LedgerEntry, micros: number): void {
    const key = keyOf(entry.projectId, entry.month)
    const left = (pendingMicros.get(key) ?? 0) + micros
    if (left === 0) pendingMicros.delete(key)
    else pendingMicros.set(key, left)
  }

  function withPending(projectId: string, month: string, row: BudgetRow): BudgetRow {
    const pending = pendingMicros.get(keyOf(projectId, month)) ?? 0
    return pending === 0 ? row : { ...row, usedMicros: row.usedMicros + pending }
  }

  function committed({ entry }: Settlement, mark: JournalMark | undefined, row: BudgetRow): void {
    known.set(keyOf(entry.projectId, entry.month), row)
    addPending(entry, -entry.costMicros)
    if (mark !== undefined) journal.committed(mark)
  }

  async function retryEach(): Promise<void> {
    for (const [id, { settlement, mark }] of unsettled) {
      try {
        const [row] = await commitNow([settlement])
        unsettled.delete(id)
        committed(settlement, mark, row!)
      } catch (err) {
        // One entry refused for a reason of its own must not hold back the others.
        if (err instanceof DependencyUnavailableError) throw err
      }
    }
  }

  return {
    settle(settlement, line) {
      const { entry } = settlement
      // Counted at once, as the journal write with this turn's other settlements will make it
      // durable; should that write fail, the answer waits for the commit instead.
      addPending(entry, entry.costMicros)
      let written!: Promise<boolean>
      const commit = track(
        new Promise<BudgetRow>((resolve, reject) => {
          written = journal.appendInTurn(
            line,
            (mark) => {
              commitInTurn(entry.projectId, settlement).then(
                (row) => {
                  committed(settlement, mark, row)
                  resolve(row)
                },
                (err: unknown) => {
                  // The provider was paid: the charge is kept and retried, and its hold with it, so the
                  // budget stays held until it is recorded.
                  if (unsettled.size < MAX_UNSETTLED) unsettled.set(entry.id, { settlement, mark })
                  reject(err)
                },
              )
            },
            undefined,
          )
        }),
      )
      const row = known.get(keyOf(entry.projectId, entry.month))
      return { row: row === undefined ? undefined : withPending(entry.projectId, entry.month, row), committed: commit, written }
    },

    withPending,

    noteRow(projectId, month, row) {
      known.set(keyOf(projectId, month), row)
    },

    retryUnsettled() {
      // One retry at a time: two would commit a settlement twice, shrinking its lease twice.
      retrying ??= retryEach().finally(() => {
        retrying = undefined
      })
      return retrying
    },

    async replayDead() {
      const journals = deadJournals(directory, isLive)
      let replayed = 0
      let unreadable = 0
      for (const found of journals) {
        const settlements = settlementsOf(found)
        for (let i = 0; i < settlements.length; i += REPLAY_BATCH) await commitNow(settlements.slice(i, i + REPLAY_BATCH))
        removeJournal(found.path)
        replayed += settlements.length
        unreadable += found.unreadable
      }
      return { replayed, unreadable }
    },

    close: () => journal.close(),
  }
}

/** The settlements a dead process journaled, each shrinking the lease of that process its hold came from. */
function settlementsOf({ owner, lines }: DeadJournal): Settlement[] {
  return lines
    .filter((line) => line.started !== true)
    .map(({ entry, limitMicros, leased }) =>
      leased === undefined ? { entry, limitMicros } : { entry, limitMicros, lease: { id: leaseIdOf(owner, entry.projectId, leased.month), ...leased } },
    )
}
