import t from 'tap'
import { Registry } from 'prom-client'
import { openStore } from '../../../proxy/stores/store.ts'
import { registerCommitMetrics } from '../../../proxy/stores/commit-metrics.ts'
import { call, hello } from '../../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

const commitsIn = (text: string, store: string) => Number(new RegExp(`tollgate_store_commits_total\\{store="${store}"\\} (\\d+)`).exec(text)?.[1] ?? NaN)

t.test('the counter reports what each store committed since the last scrape, and a store it lacks not at all', async (t) => {
  const registry = new Registry()
  let lmdb = 3
  registerCommitMetrics(registry, { lmdb: () => lmdb, postgres: undefined })
  t.equal(commitsIn(await registry.metrics(), 'lmdb'), 3)
  lmdb = 10
  t.equal(commitsIn(await registry.metrics(), 'lmdb'), 10)
  t.notMatch(await registry.metrics(), /store="postgres"/)
})

t.test('LMDB commits are counted as the environment makes them: the writes of one turn in one', async (t) => {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const records = store.forPlugin('test')
  const db = records.open<number>('numbers')
  await records.transaction(() => db.put('warm', 0))
  const start = store.commits()
  await Promise.all(Array.from({ length: 10 }, (_, i) => records.transaction(() => db.put(`same-turn-${i}`, i))))
  t.equal(store.commits() - start, 1, 'ten transactions begun in one turn commit together')
  for (let i = 0; i < 3; i++) await records.transaction(() => db.put(`one-by-one-${i}`, i))
  t.equal(store.commits() - start, 4, 'three awaited one after another commit one each')
})

t.test('a gateway reports its commits on /metrics', async (t) => {
  const dataDir = freshDataDir(t)
  const { keys } = await seedProject(dataDir, { plan: 'pro', budgetDollars: 1000 })
  // As `serve --workers` sets it: limits and holds in the store every process sees.
  const plugins = { 'rate-limit': { shared: true }, metering: { shared: true } }
  const { url } = await startTestGateway(t, { dataDir, overrides: { plugins } })
  const before = commitsIn((await call(`${url}/metrics`)).body, 'lmdb')
  const requests = 20
  const answers = await Promise.all(Array.from({ length: requests }, () => call(`${url}/api/ai/chat`, { key: keys[0]!.key, body: hello })))
  t.equal(answers.filter((a) => a.status === 200).length, requests)
  const commits = commitsIn((await call(`${url}/metrics`)).body, 'lmdb') - before
  // Each request writes its rate-limit state, its hold, its charge and its cache entry (the key's
  // last use once a minute); how many of those share a commit depends on how the requests fall
  // into turns of the event loop, so only the bounds are fixed.
  t.ok(commits > 0 && commits <= 4 * requests + 1, `${commits} commits for ${requests} requests`)
})
