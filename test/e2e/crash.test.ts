// Nothing is lost and nothing counted twice across a crash: a gateway killed with SIGKILL under
// load has a ledger entry for every answer a client received, and its restart releases the
// budget it held for requests that never finished.
import t, { type Test } from 'tap'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { spawnGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, TEST_SECRET } from '../helpers/start-gateway.ts'
import { openStore } from '../../proxy/stores/store.ts'
import { createLedger } from '../../plugins/metering/store/lmdb/ledger.ts'
import { until } from '../helpers/until.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))

function launch(t: Test, dataDir: string, upstream: string, configFile: string) {
  return spawnGateway(t, [CLI, 'serve', '--data', dataDir], {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: upstream,
    OPENAI_API_KEY: 'test',
    TOLLGATE_CONFIG: configFile,
  })
}

// Budget holds live in memory for a process alone on its store, in the store when processes share it.
for (const shared of [false, true]) {
  t.test(
    `after a SIGKILL under load every answered request is in the ledger once and no hold is left (${shared ? 'holds in the store' : 'holds in memory'})`,
    async (t) => {
      const mock = await startMockUpstream({ latencyMs: 40 })
      t.teardown(() => mock.close())
      const dataDir = freshDataDir(t)
      const configFile = join(dataDir, 'config.json')
      writeFileSync(configFile, JSON.stringify({ plugins: { metering: { shared } } }))
      const seeded = await seedProject(dataDir, { budgetDollars: 1000 })
      const key = seeded.keys[0]!.key
      const first = await launch(t, dataDir, mock.url, configFile)

      const answered = new Set<string>()
      let stop = false
      const worker = async () => {
        while (!stop) {
          try {
            const res = await request(`${first.url}/api/ai/complete`, {
              method: 'POST',
              headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
              body: JSON.stringify({ messages: [{ role: 'user', content: 'count me once' }] }),
            })
            await res.body.text()
            if (res.statusCode === 200) answered.add(String(res.headers['x-request-id']))
          } catch {
            return
          }
        }
      }
      const load = Array.from({ length: 20 }, worker)
      await until(() => answered.size >= 60, '60 answers', 60_000)
      // From here on the provider holds every call, so requests are surely in flight at the kill.
      mock.fail('slow-first-byte', 1000)
      const seen = mock.requests.length
      await until(() => mock.requests.length >= seen + 10, 'ten requests held by the provider', 30_000)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      stop = true
      await Promise.all(load)

      const beforeRestart = openStore(dataDir)
      const held = createLedger(beforeRestart.forPlugin('metering')).reservationCount()
      await beforeRestart.close()
      if (shared) t.ok(held > 0, `the crash left ${held} stored holds of requests in flight`)
      else t.equal(held, 0, 'holds in memory leave nothing in the store')

      const second = await launch(t, dataDir, mock.url, configFile)
      second.child.kill('SIGTERM')
      await once(second.child, 'exit')

      const store = openStore(dataDir)
      t.teardown(() => store.close())
      const ledger = createLedger(store.forPlugin('metering'))
      t.equal(ledger.reservationCount(), 0, 'the restart released every reservation')
      const missing = [...answered].filter((id) => ledger.entry(id) === undefined)
      t.same(missing, [], `all ${answered.size} answered requests are in the ledger`)
      const entries = [
        ...store.forPlugin('metering').open<{ projectId: string; costMicros: number; month: string }>('ledger', { records: true }).getRange(),
      ].map((e) => e.value)
      const row = ledger.budget(seeded.projectId, entries[0]!.month)
      t.equal(row.reservedMicros, 0, 'no budget is held')
      t.equal(
        row.usedMicros,
        entries.reduce((sum, e) => sum + e.costMicros, 0),
        "the budget used is exactly the ledger's sum",
      )
    },
  )
}
