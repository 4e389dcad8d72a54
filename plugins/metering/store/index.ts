// Where metering keeps its records: the ledger, the month's aggregates that budgets are checked
// against, the per-day figures /api/usage reads, budget holds and stream checkpoints. LMDB on one
// host (lmdb/); PostgreSQL when several gateways share DATABASE_URL (postgres/).
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import { isLiveOwner, SELF_OWNER } from '../../../proxy/stores/process-owner.ts'
import type { MeteringConfig } from '../schema.ts'
import type { DayStats, Hold, LedgerEntry, Settled, StreamCheckpoint } from './records.ts'
import { lmdbMeteringStore } from './lmdb/index.ts'
import { postgresMeteringStore } from './postgres/index.ts'
import type { BudgetRow } from '../logic/budget.ts'
import type { ReserveResult } from '../logic/admit.ts'
import type { PeriodRange } from '../logic/periods.ts'
import type { SpendDimension, SpendRow } from '../logic/spend-breakdown.ts'

export interface Recovered {
  /** Holds of gateways that are gone, given back to their budgets. */
  readonly released: number
  /** Streams of gateways that are gone, settled to their last checkpoint as `recovered` (at least their prompt). */
  readonly recovered: number
  /** Settlements a process journaled and did not commit, committed now. */
  readonly replayed: number
  /** Journal lines that could not be read. */
  readonly unreadable: number
}

interface SettleOptions {
  /** The hold the request reserved, which the settlement gives back; undefined when it took none. */
  readonly hold: Hold | undefined
  /** The request is a stream whose progress was checkpointed, which the settlement removes. */
  readonly checkpointed: boolean
}

export interface MeteringStore {
  /** Cleans up after gateways that are gone: at start, and every `recoverEveryMs` where that is set. */
  recover(): Promise<Recovered>
  /** How often recover() runs again while the gateway runs; undefined when once at start is enough. */
  readonly recoverEveryMs: number | undefined
  /** Admits the hold only if the month's spend, the holds and it together fit the limit. */
  reserve(hold: Hold, limitMicros: number): ReserveResult | Promise<ReserveResult>
  /** Call once the request's settlement counts; a store that removes the hold as it settles ignores it. */
  release(hold: Hold): void
  /** Records a finished request once by its id, charging its month; a repeated id changes nothing. */
  settle(entry: LedgerEntry, limitMicros: number, options: SettleOptions): Settled
  /** Records running streams' progress; a stream already settled is skipped. */
  checkpoint(progress: readonly StreamCheckpoint[]): Promise<void>
  /**
   * Records the first checkpoint of streams just admitted (their prompts), so that a crash while
   * they run settles each to at least that; a later checkpoint of a stream is never replaced by it.
   */
  startStreams(progress: readonly StreamCheckpoint[]): Promise<void>
  entry(id: string): Promise<LedgerEntry | undefined>
  budget(projectId: string, month: string): Promise<BudgetRow>
  /** The figures of each day of the range that had any request, by day. */
  dayStats(projectId: string, range: PeriodRange): Promise<ReadonlyMap<string, DayStats>>
  /** The range's figures of each key, user or tag that had a request, the costliest first. */
  spend(projectId: string, range: PeriodRange, dimension: SpendDimension): Promise<SpendRow[]>
  /** Resolves once every settlement made so far is committed (or refused). */
  idle(): Promise<void>
  close(): Promise<void>
}

/** The one place metering's backend is chosen: PostgreSQL when the gateway has DATABASE_URL, else LMDB. */
export function openMeteringStore(
  { store, database, sharedEvents, clock, track, events }: Pick<PluginDeps, 'store' | 'database' | 'sharedEvents' | 'clock' | 'track' | 'events'>,
  config: MeteringConfig,
): MeteringStore | Promise<MeteringStore> {
  return database === undefined
    ? lmdbMeteringStore(store, { shared: config.shared, track, events })
    : postgresMeteringStore(database, {
        clock,
        owner: SELF_OWNER,
        leaseMs: config.holdLeaseMs,
        events: sharedEvents,
        journalDirectory: store.directory,
        isLive: isLiveOwner,
      })
}
