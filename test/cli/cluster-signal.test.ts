// A signal while `tollgate serve --workers N` starts its workers stops the ones that started and
// the primary exits 0, leaving no worker behind.
import t from 'tap'
import { once } from 'node:events'
import { firstWorker, isRunning, launchPrimary } from '../helpers/spawn-cluster.ts'

t.test('SIGTERM while the workers start stops the ones that started and exits 0', async (t) => {
  for (const moment of ['before any worker is ready', 'once the first worker is ready'] as const) {
    const primary = launchPrimary(t, 2)
    if (moment === 'before any worker is ready') await firstWorker(primary)
    else await primary.until(/listening on/)
    const started = primary.workers()
    primary.child.kill('SIGTERM')
    const [code] = await once(primary.child, 'exit')
    t.equal(code, 0, `exit 0 (${moment})`)
    t.match(primary.output(), /tollgate: SIGTERM: stopping \d+ worker/)
    t.same(started.filter(isRunning), [], `no worker is left (${moment})`)
  }
})
