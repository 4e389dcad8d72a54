import t from 'tap'
import { Registry } from 'prom-client'
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

t.test('requests served together share the store\'s write transactions', async (t) => {
  const dataDir = freshDataDir(t)
  const { keys } = await seedProject(dataDir, { plan: 'pro', budgetDollars: 1000 })
  // As `serve --workers` sets it: limits and holds in the store every process sees.
  const plugins = { 'rate-limit': { shared: true }, metering: { shared: true } }
  const { url } = await startTestGateway(t, { dataDir, overrides: { plugins } })
  const before = commitsIn((await call(`${url}/metrics`)).body, 'lmdb')
  const requests = 100
  const answers = await Promise.all(Array.from({ length: requests }, () => call(`${url}/api/ai/chat`, { key: keys[0]!.key, body: hello })))
  t.equal(answers.filter((a) => a.status === 200).length, requests)
  const commits = commitsIn((await call(`${url}/metrics`)).body, 'lmdb') - before
  t.ok(commits > 0, `the requests committed (${commits})`)
  // Each request writes its rate-limit state, its hold and its charge: one transaction apiece would be 300.
  t.ok(commits <= requests / 4, `${commits} commits for ${requests} concurrent requests`)
})
