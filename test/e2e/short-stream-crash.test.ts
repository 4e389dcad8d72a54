// Streams cut by a SIGKILL before their first periodic checkpoint are never released as free:
// the restart charges each at least its prompt, once, and never above its hold, whether holds are
// kept in memory or in the store. (On PostgreSQL: test/plugins/metering/shared-stream-crash.test.ts.)
import t from 'tap'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { openStore } from '../../proxy/stores/store.ts'
import type { LedgerEntry } from '../../plugins/metering/store/records.ts'
import type { Reservation } from '../../plugins/metering/store/lmdb/tables.ts'
import { checkCutCharges, gatewayToCrash, ledgerAfterRestart, streamsToCut } from '../helpers/cut-streams.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
// No periodic checkpoint can come before the kill: every stream is far shorter than the interval.
const CHECKPOINT_INTERVAL_MS = 60_000

for (const shared of [false, true]) {
  t.test(
    `streams cut by a SIGKILL before any periodic checkpoint are charged at least their prompt (${shared ? 'holds in the store' : 'holds in memory'})`,
    async (t) => {
      const mock = await startMockUpstream({ slowStreamMs: 20 })
      t.teardown(() => mock.close())
      const { dataDir, seeded, env, first } = await gatewayToCrash(t, CLI, mock, { shared, checkpointIntervalMs: CHECKPOINT_INTERVAL_MS })

      // Killed as soon as every client has some text: on LMDB, nothing waits for a commit first.
      const streams = await streamsToCut(t, mock, first.url, seeded.keys[0]!.key)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      const watching = openStore(dataDir)
      const reservations = watching.forPlugin('metering').open<Reservation>('reservations', { records: true })
      // Processes sharing a store carve their holds from a lease there (plugins/metering/store/leases.ts).
      const leased = [...reservations.getRange()].reduce((sum, { key, value }) => (String(key).startsWith('lease/') ? sum + value.micros : sum), 0)
      await watching.close()
      if (shared) t.ok(leased > 0, "the crash left the lease the streams' holds came from in the store")

      const { store, ledger } = await ledgerAfterRestart(t, CLI, dataDir, env)
      checkCutCharges(
        t,
        streams,
        (id) => ledger.entry(id),
        () => undefined,
      )
      t.equal(ledger.checkpointCount(), 0, 'no checkpoint is left')
      t.equal(ledger.reservationCount(), 0, 'no hold is left')
      const entries = [...store.forPlugin('metering').open<LedgerEntry>('ledger', { records: true }).getRange()].map((e) => e.value)
      if (entries.length > 0) {
        const row = ledger.budget(seeded.projectId, entries[0]!.month)
        t.equal(
          row.usedMicros,
          entries.reduce((sum, e) => sum + e.costMicros, 0),
          "the budget is charged exactly the ledger's sum: nothing twice",
        )
        t.equal(row.reservedMicros, 0, 'no budget is held')
      }
    },
  )
}
