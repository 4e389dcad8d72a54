// Metering on PostgreSQL, shared by every gateway on DATABASE_URL. Holds are carved in memory from
// a budget lease each gateway keeps on a month (leases.ts), taken over with the gateway's other
// rows when its owner lease runs out (sweep.ts); a key with a budget of its own is held in the
// store (keyed-holds.ts). A settlement is journaled on this host and counts at once; its
// transaction (ledger entry keyed by request id, the month's and the day's aggregates, its lease
// shrunk by its hold) is committed after the answer (journaled-settlements.ts), a project's
// settlements committed in turns, those that queued behind one commit sharing the next.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../../../proxy/stores/database.ts'
import { DependencyUnavailableError } from '../../../../proxy/pipeline/errors.ts'
import { takeOwnerLease } from '../../../../proxy/stores/owner-lease.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import { batchedTurns } from '../../../../proxy/stores/batched-turns.ts'
import { availableMicros, type BudgetRow } from '../../logic/budget.ts'
import type { ReserveResult } from '../../logic/admit.ts'
import { leasedHolds } from '../leases.ts'
import type { Hold, KeyBudget, Settled, StreamCheckpoint } from '../records.ts'
import type { MeteringStore, Recovered } from '../index.ts'
import { holdKeyed, type Admission, type KeyedReservation } from './keyed-holds.ts'
import { dropLeases, leaseIdOf, postgresLeaseStore } from './leases.ts'
import { dayStats, insertCheckpoints, ledgerEntry, spend } from './ledger.ts'
import { budgetRow, noteLimit } from './rows.ts'
import { meteringMigrations } from './schema.ts'
import { journaledSettlements } from './journaled-settlements.ts'
import { settleBatch, type Settlement } from './settlement.ts'
import { sweep } from './sweep.ts'

interface PostgresMeteringOptions {
  readonly clock: Clock
  /** `pid:uuid` of this gateway: its holds and checkpoints are kept while its lease is renewed. */
  readonly owner: string
  /** Where this gateway journals its settlements until they are committed (its own disk). */
  readonly journalDirectory: string
  /** Whether a process whose journal is found there still runs. */
  readonly isLive: (owner: string) => boolean
  /** How long a gateway that stopped renewing keeps its holds; renewed every third of it. */
  readonly leaseMs: number
  /** Usage events are recorded in the transaction that decides them. */
  readonly events?: SharedEventOutbox | undefined
  /** Where background work goes, so that a stop waits for it. */
  readonly track?: ((work: Promise<unknown>) => void) | undefined
}

// The most settlements, or holds, of one project committed together.
const MAX_BATCH = 64

export async function postgresMeteringStore(database: PluginDatabase, options: PostgresMeteringOptions): Promise<MeteringStore> {
  const { clock, owner, leaseMs, events } = options
  await database.migrate(meteringMigrations)
  const inFlight = new Set<Promise<unknown>>()
  const noteMonthLimit = (projectId: string, month: string, limitMicros: number, requestedMicros: number) =>
    noteLimit(database, events, projectId, month, limitMicros, requestedMicros)

  const noteRow = (projectId: string, month: string, row: BudgetRow) => settlements.noteRow(projectId, month, row)
  const leases = leasedHolds(postgresLeaseStore(database, owner, noteMonthLimit, noteRow), {
    // A hold is carved only while this gateway's lease is fresh, so its budget lease is not taken over meanwhile.
    ready: () => (lease.fresh() ? undefined : lease.current()),
    track: (work) => (options.track ?? tracked)(work.catch(() => undefined)),
  })
  const lease = await takeOwnerLease(database, 'metering_owners', owner, leaseMs, clock, async () => {
    leases.lapse()
    await dropLeases(database, owner)
  })

  /** Settles in one transaction; one that moves no money need not wait for the WAL to reach the disk. */
  function settleNow(batch: readonly Settlement[]): Promise<readonly BudgetRow[]> {
    return database.transaction(async (sql) => {
      const settled = await settleBatch(sql, batch, events)
      // A crash of the database server may then lose the last fraction of a second of cache
      // hits and errors, which only the hit and request counts would miss. Budgets never depend on it.
      if (!settled.movesMoney) await sql.query('SET LOCAL synchronous_commit = off')
      return settled.rows
    })
  }

  // A project's settlements and holds in turns (batched-turns.ts), a turn's in one transaction.
  const turnOptions = { maxBatch: MAX_BATCH, retryAlone: (err: unknown) => !(err instanceof DependencyUnavailableError) }
  const settlements = journaledSettlements({
    directory: options.journalDirectory,
    owner,
    isLive: options.isLive,
    track: tracked,
    commitInTurn: batchedTurns(settleNow, turnOptions),
    commitNow: settleNow,
  })
  const reserveKeyedInTurn = batchedTurns<KeyedReservation, Admission>((batch) => database.transaction((sql) => holdKeyed(sql, batch, owner)), turnOptions)
  // First checkpoints of all projects in turns: those admitted while one insert commits go in the next.
  const startInTurn = batchedTurns<readonly StreamCheckpoint[], undefined>(async (batches) => {
    await insertCheckpoints(database, owner, batches.flat(), 'keep')
    return batches.map(() => undefined)
  }, turnOptions)

  async function reserveKeyed(hold: Hold, key: KeyBudget, limitMicros: number): Promise<ReserveResult> {
    await lease.current()
    const admission = await reserveKeyedInTurn(hold.projectId, { hold, limitMicros })
    if (admission === 'held') return { ok: true }
    if (admission === 'key') {
      const row = await budgetRow(database, key.keyId, hold.month)
      return { ok: false, availableMicros: Math.max(0, availableMicros(row, key.limitMicros)), byKey: true }
    }
    const row: BudgetRow =
      (await noteMonthLimit(hold.projectId, hold.month, limitMicros, hold.micros)) ?? (await budgetRow(database, hold.projectId, hold.month))
    return { ok: false, availableMicros: Math.max(0, availableMicros(row, limitMicros)) }
  }

  const caughtUp = () => Promise.allSettled([...inFlight])
  const afterCommits = <T>(read: () => Promise<T>) =>
    caughtUp()
      .then(() => settlements.retryUnsettled().catch(() => undefined))
      .then(read)

  function tracked<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work)
    const done = () => inFlight.delete(work)
    work.then(done, done)
    return work
  }

  return {
    async recover(): Promise<Recovered> {
      await lease.renew()
      await settlements.retryUnsettled()
      // Before the sweep: a dead process's journaled charges shrink its lease before the lease is given back.
      const { replayed, unreadable } = await settlements.replayDead()
      const { recovered, released } = await sweep(database, clock.now(), events)
      return { released, recovered, replayed, unreadable }
    },

    recoverEveryMs: lease.renewEveryMs,

    reserve(hold: Hold, limitMicros: number) {
      const decide = () => (hold.key === undefined ? leases.reserve(hold, limitMicros) : reserveKeyed(hold, hold.key, limitMicros))
      // Until a settlement commits, its whole hold still counts as reserved in the month's row,
      // though its charge is often less, and a decision may read the row before a commit in
      // flight as it began: such a refusal is decided again once those commits are in, so no
      // request is refused for money that was only waiting to be freed.
      const settling = inFlight.size > 0
      const again = (result: ReserveResult) => (result.ok || !settling ? result : caughtUp().then(decide))
      const first = decide()
      return first instanceof Promise ? first.then(again) : again(first)
    },

    // The settlement shrinks the hold's lease in its own transaction.
    release: () => undefined,

    settle(entry, limitMicros, { hold, checkpointed }): Settled {
      const leased = hold === undefined ? undefined : leases.settling(hold)
      const settlement: Settlement =
        leased === undefined ? { entry, limitMicros } : { entry, limitMicros, lease: { id: leaseIdOf(owner, entry.projectId, leased.month), ...leased } }
      const line =
        leased === undefined
          ? { entry, limitMicros, heldInStore: hold?.key !== undefined, checkpointed }
          : { entry, limitMicros, heldInStore: false, checkpointed, leased }
      return settlements.settle(settlement, line)
    },

    checkpoint: (progress) => insertCheckpoints(database, owner, progress, 'replace'),

    // Committed in turns, not before the provider is asked: a crash in the moment before the
    // commit leaves the stream to its hold alone (see docs/budgets-and-metering.md, Budgets on PostgreSQL).
    startStreams: (progress) => tracked(startInTurn('streams', progress)),

    // Reads wait for this gateway's commits in flight and retry those that failed, so they count
    // every answer it already sent; a charge still not committed counts in its month's row all the same.
    entry: (id) => afterCommits(() => ledgerEntry(database, id)),
    budget: (projectId, month) => afterCommits(async () => settlements.withPending(projectId, month, await budgetRow(database, projectId, month))),
    dayStats: (projectId, range) => afterCommits(() => dayStats(database, projectId, range)),
    spend: (projectId, range, dimension) => afterCommits(() => spend(database, projectId, range, dimension)),

    async idle() {
      await caughtUp()
    },

    async close() {
      await leases.close().catch(() => undefined)
      await caughtUp()
      settlements.close()
      // What it still holds is given back by the next sweep of any gateway; a settlement that could
      // not be committed stays in the journal, committed by the next start on this host.
      await lease.end()
    },
  }
}
