// Metering on the local LMDB store: the ledger of ledger.ts, with holds in memory for a process
// alone on its store (holds.ts), or carved from budget leases for processes sharing it
// (../leases.ts). A settlement is journaled and counts at once; its commit follows in the
// background.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { memoryHolds, storeHolds } from './holds.ts'
import { leasedHolds } from '../leases.ts'
import { createLedger } from './ledger.ts'
import type { DayStats } from '../records.ts'
import type { MeteringStore } from '../index.ts'
import { daysOf } from '../../logic/periods.ts'
import { isLiveOwner, SELF_OWNER } from '../../../../proxy/stores/process-owner.ts'
import { mergeSpendRows } from '../../logic/spend-breakdown.ts'

interface LmdbMeteringOptions {
  /** Processes share the store (serve --workers): holds are kept in it. */
  readonly shared: boolean
  readonly track: (work: Promise<unknown>) => void
  readonly events?: EventOutbox | undefined
}

export function lmdbMeteringStore(store: PluginStore, { shared, track, events }: LmdbMeteringOptions): MeteringStore {
  const ledger = createLedger(store, events, SELF_OWNER, !shared)
  // A lease that cannot be given back (the store closing) stays reserved until the next start's recovery.
  const leases = shared ? leasedHolds(ledger, { track: (work) => track(work.catch(() => undefined)) }) : undefined
  const holds = leases ?? memoryHolds(ledger, (hold, limitMicros) => track(ledger.limitExceeded(hold.projectId, hold.month, limitMicros, hold.micros)))
  // A key with a budget of its own is held in the store, where both its budgets are checked at once.
  const keyed = shared ? storeHolds(ledger) : undefined
  return {
    recover: () => ledger.recover(isLiveOwner),
    recoverEveryMs: undefined,
    reserve: (hold, limitMicros) => (keyed !== undefined && hold.key !== undefined ? keyed : holds).reserve(hold, limitMicros),
    release: (hold) => holds.release(hold),
    // A leased hold shrinks its lease; one held in the store removes its reservation.
    settle(entry, limitMicros, { hold, checkpointed }) {
      const leased = leases !== undefined && hold !== undefined ? leases.settling(hold) : undefined
      return ledger.settle(entry, limitMicros, keyed !== undefined && hold?.key !== undefined, checkpointed, leased)
    },
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
      await leases?.close().catch(() => undefined)
      await ledger.idle()
      ledger.close()
    },
  }
}
