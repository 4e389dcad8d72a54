// A signal while `tollgate serve --workers N` starts its workers stops the ones that started and
// the primary exits 0, leaving no worker behind; so does a signal while the primary still loads,
// before any worker exists.
import t from 'tap'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { firstWorker, isRunning, launchPrimary } from '../helpers/spawn-cluster.ts'
import { until } from '../helpers/until.ts'

/** CPU time the process has used (utime + stime, in ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** Loading the gateway's modules takes the primary more than a second of CPU; Node's own start, well under this. */
const LOADING_CPU_MS = 250

t.test('SIGTERM while the primary still loads, before any worker exists: exit 0 and no worker', async (t) => {
  const primary = launchPrimary(t, 2)
  const pid = primary.child.pid!
  await until(() => primary.child.exitCode !== null || cpuMs(pid) >= LOADING_CPU_MS || primary.workers().length > 0, 'the primary to be loading')
  t.same(primary.workers(), [], 'no worker exists yet')
  primary.child.kill('SIGTERM')
  const [code, signal] = await once(primary.child, 'exit')
  t.equal(signal, null, 'the primary is not ended by the signal')
  t.equal(code, 0, 'it exits 0')
  t.same(primary.workers(), [], 'and started no worker')
})

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
