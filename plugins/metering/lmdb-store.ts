// Metering on the local LMDB store: the ledger of ledger.ts, with holds in memory for a process
// alone on its store or in the store for processes sharing it (budget-holds.ts). A settlement is
// journaled and counts at once; its commit follows in the background.
import type { EventOutbox } from '../../proxy/events.ts'
import type { PluginStore } from '../../proxy/store.ts'
import { memoryHolds, storeHolds } from './budget-holds.ts'
import { createLedger, type DayStats } from './ledger.ts'
import type { MeteringStore } from './metering-store.ts'
import { daysOf } from './periods.ts'
import { isLiveOwner, SELF_OWNER } from './process-owner.ts'
import { mergeSpendRows } from './spend-breakdown.ts'

export interface LmdbMeteringOptions {
  /** Processes share the store (serve --workers): holds are kept in it. */
  readonly shared: boolean
  readonly track: (work: Promise<unknown>) => void
  readonly events?: EventOutbox | undefined
}

export function lmdbMeteringStore(store: PluginStore, { shared, track, events }: LmdbMeteringOptions): MeteringStore {
  const ledger = createLedger(store, events, SELF_OWNER, !shared)
  const holds = shared
    ? storeHolds(ledger)
    : memoryHolds(ledger, (hold, limitMicros) => track(ledger.limitExceeded(hold.projectId, hold.month, limitMicros, hold.micros)))
  return {
    recover: () => ledger.recover(isLiveOwner),
    recoverEveryMs: undefined,
    reserve: (hold, limitMicros) => holds.reserve(hold, limitMicros),
    release: (hold) => holds.release(hold),
    // Only a hold taken in the store has a reservation record to remove; skipping the lookup
    // otherwise saves a read per cache hit.
    settle: (entry, limitMicros, { held, checkpointed }) => ledger.settle(entry, limitMicros, shared && held, checkpointed),
    checkpoint: (progress) => ledger.checkpoint(progress),
    startStreams: (progress) => ledger.startStreams(progress),
    entry: async (id) => ledger.entry(id),
    budget: async (projectId, month) => ledger.budget(projectId, month),
    async dayStats(projectId, range) {
      const days = new Map<string, DayStats>()
      for (const day of daysOf(range)) {
        const stats = ledger.dayStats(projectId, day)
        if (stats !== undefined) days.set(day, stats)
      }
      return days
    },
    spend: async (projectId, range, dimension) => mergeSpendRows(daysOf(range).flatMap((day) => ledger.spendRows(projectId, day, dimension))),
    idle: () => ledger.idle(),
    async close() {
      await ledger.idle()
      ledger.close()
    },
  }
}
