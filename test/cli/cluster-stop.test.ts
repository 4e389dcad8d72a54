// `tollgate serve --workers 2` stopped while streams that never end are open, on a machine kept
// busy by CPU burners beside it (four per core, on top of whatever else runs): the whole cluster
// exits 0 within the grace, counted from the signal, and leaves no worker behind.
import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { endOf, isRunning, launchPrimary, urlOf } from '../helpers/spawn-cluster.ts'
import { freshDataDir, seedProject } from '../helpers/start-gateway.ts'
import { until } from '../helpers/until.ts'

const GRACE_MS = 8000
/** Longer than any stop, so the machine stays loaded throughout; ended with the test. */
const BURN_MS = 40_000

function burnCpu(t: Test, count: number): void {
  for (let i = 0; i < count; i++) {
    const burner = spawn(process.execPath, ['-e', `const end = Date.now() + ${BURN_MS}; while (Date.now() < end);`], { stdio: 'ignore' })
    t.teardown(() => {
      if (burner.exitCode === null && burner.signalCode === null) burner.kill('SIGKILL')
    })
  }
}

t.test('SIGTERM to a loaded cluster whose streams never end: every process is gone within the grace', async (t) => {
  const mock = await startMockUpstream({ slowStreamMs: 100 })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const configFile = join(dataDir, 'config.json')
  writeFileSync(configFile, JSON.stringify({ shutdownGraceMs: GRACE_MS }))
  const key = (await seedProject(dataDir, { budgetDollars: 1000 })).keys[0]!.key
  const primary = launchPrimary(t, 2, { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test', TOLLGATE_CONFIG: configFile }, dataDir)
  await primary.until(/listening on/, 2)
  const url = urlOf(primary.output())

  // One stream per worker (a fresh connection each, which the primary hands out in turn).
  mock.fail('slow-stream', 2)
  const streams = await Promise.all(
    [0, 1].map(async (n) => {
      const stream = await request(`${url}/api/ai/chat`, {
        method: 'POST',
        reset: true,
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
        body: JSON.stringify({ messages: [{ role: 'user', content: `a story that never ends, ${n}` }] }),
      })
      t.equal(stream.statusCode, 200)
      let text = ''
      const ended = (async () => {
        for await (const chunk of stream.body) text += chunk.toString()
      })().catch(() => undefined)
      await until(() => text.includes('event: delta'), 'the first delta')
      return { ended }
    }),
  )

  burnCpu(t, 4 * availableParallelism())
  const workers = primary.workers()
  t.equal(workers.length, 2)
  const exited = once(primary.child, 'exit')
  const signalAt = performance.now()
  primary.child.kill('SIGTERM')
  const ms = Math.round((await endOf(primary.child.pid!)) - signalAt)
  const [code, signal] = await exited
  t.equal(code, 0, `the primary exits 0 (signal ${signal})`)
  t.ok(ms <= GRACE_MS, `the cluster stopped ${ms} ms after the signal (grace ${GRACE_MS} ms)`)
  t.ok(ms >= GRACE_MS / 2, 'after giving the streams most of the grace')
  await Promise.all(streams.map((s) => s.ended))
  t.same(workers.filter(isRunning), [], 'no worker is left')
})
