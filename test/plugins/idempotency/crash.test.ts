// Exactly once across a kill -9 between the idempotency commit and the ledger commit: a real
// gateway process stops itself with SIGKILL right after committing the answer under the key
// (a crash point the test preloads, see test/helpers/crash-at.ts), so its client never gets the answer and the
// ledger never hears of it. After a restart the retry gets the stored answer, and the original
// request is charged once, by its own id.
import t, { type Test } from 'tap'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { crashAt } from '../../helpers/crash-at.ts'
import { call, parseSse } from '../../helpers/http.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { body, inspect } from './fixtures.ts'

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))

function launchDoomed(t: Test, dataDir: string, configFile: string) {
  const crash = crashAt('idempotency-commit')
  return spawnGateway(t, [...crash.nodeArgs, CLI, 'serve', '--data', dataDir], {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    LOCAL_CHUNK_DELAY_MS: '0',
    TOLLGATE_CONFIG: configFile,
    ...crash.env,
  })
}

const cases = [
  { route: 'complete', shared: false },
  { route: 'chat', shared: true },
] as const

for (const { route, shared } of cases) {
  t.test(
    `a kill -9 between the two commits: the retry is replayed and the original charged once (${route}, holds ${shared ? 'in the store' : 'in memory'})`,
    async (t) => {
      const dataDir = freshDataDir(t)
      const configFile = join(dataDir, 'config.json')
      writeFileSync(configFile, JSON.stringify({ plugins: { metering: { shared } } }))
      const made = await seedProject(dataDir)
      const projectId = made.projectId
      const headers = { 'x-api-key': made.keys[0]!.key, 'content-type': 'application/json', 'idempotency-key': `crash-${route}` }

      const doomed = await launchDoomed(t, dataDir, configFile)
      const exited = once(doomed.child, 'exit')
      const lost = await request(`${doomed.url}/api/ai/${route}`, { method: 'POST', headers, body: JSON.stringify(body) })
        .then((res) => res.body.text())
        .then(
          (text) => ({ text }),
          (error: unknown) => ({ error }),
        )
      const [, signal] = await exited
      t.equal(signal, 'SIGKILL', 'the gateway was killed at the fault point')
      if ('text' in lost) t.notMatch(lost.text, /event: done/, 'the client never received the whole answer')

      const crashed = await inspect(dataDir, async (view) => ({ record: await view.record(projectId, `crash-${route}`), entries: view.entries }))
      const stored = crashed.record
      t.equal(stored?.state, 'done', 'the answer was committed under the key')
      if (stored?.state !== 'done') return
      const original = stored.requestId
      t.same(crashed.entries, [], 'the ledger never saw the request: the crash came between the two commits')

      // The restart runs in this process: what matters is the store the killed process left.
      const restarted = await startTestGateway(t, { dataDir, overrides: { plugins: { metering: { shared } } } })
      const retry = await call(`${restarted.url}/api/ai/${route}`, { key: made.keys[0]!.key, body, headers: { 'idempotency-key': `crash-${route}` } })
      t.equal(retry.status, 200)
      t.equal(retry.headers['x-idempotent-replay'], 'true')
      t.equal(retry.headers['x-original-request-id'], original)
      const text = route === 'chat' ? parseSse(retry.body)[0]!.data.text : retry.body.text
      t.equal(text, stored.answer.result.text, 'the stored answer')
      const again = await call(`${restarted.url}/api/ai/${route}`, { key: made.keys[0]!.key, body, headers: { 'idempotency-key': `crash-${route}` } })
      t.equal(again.headers['x-idempotent-replay'], 'true')
      await restarted.gateway.close()

      const after = await inspect(dataDir, (view) => {
        const month = view.entries[0]?.month ?? ''
        return { entries: view.entries, row: view.budget(projectId, month) }
      })
      t.same(
        after.entries.map((e) => e.id),
        [original],
        'the ledger holds the original request, once',
      )
      t.ok(after.entries[0]!.costMicros > 0)
      t.equal(after.row.usedMicros, after.entries[0]!.costMicros, 'the budget was charged exactly once')
      t.equal(after.row.reservedMicros, 0, 'no budget is left held')
    },
  )
}
