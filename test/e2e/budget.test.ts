// Budgets under concurrency: reservations are taken before the model call in one transaction,
// so concurrent requests can never spend past the limit, and the ledger adds up to /api/usage.
import t from 'tap'
import { call } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'
import { openStore } from '../../proxy/stores/store.ts'
import { SHIPPED_TABLE } from '../../proxy/pipeline/model-table.ts'
import { until } from '../helpers/until.ts'

const body = { messages: [{ role: 'user', content: 'Summarize the quarterly numbers' }], model: 'gpt-4o', maxTokens: 1000 }
// Identical requests: without no-store the cache would answer all but the first.
const noStore = { 'cache-control': 'no-store' }

for (const shared of [false, true]) {
  t.test(
    `50 concurrent requests against a budget that fits 10: exactly 10 pass and used stays within the limit (${shared ? 'holds in the store' : 'holds in memory'})`,
    async (t) => {
      const mock = await startMockUpstream()
      t.teardown(() => mock.close())
      const dataDir = freshDataDir(t)
      const probe = await seedProject(dataDir)
      const env = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test' }
      const plugins = { metering: { shared } }
      const first = await startTestGateway(t, { dataDir, env, overrides: { plugins } })
      const promptTokens = Number(
        (await call(`${first.url}/api/ai/complete`, { key: probe.keys[0]!.key, body, headers: noStore })).headers['x-gateway-prompt-tokens'],
      )
      await first.gateway.close()

      const price = SHIPPED_TABLE.models['gpt-4o']!
      const worstMicros = Math.round(promptTokens * price.inputPerMillion + 1000 * price.outputPerMillion)
      const budgetDollars = (worstMicros * 10.5) / 1e6
      const seeded = await seedProject(dataDir, { budgetDollars })
      const { url } = await startTestGateway(t, { dataDir, env, overrides: { plugins } })
      const key = seeded.keys[0]!.key

      // The provider holds its answers until every request has been admitted or refused, so all 50
      // reservations are decided before any settles (a settled request would free budget).
      mock.hold()
      const pending = Array.from({ length: 50 }, () => call(`${url}/api/ai/complete`, { key, body, headers: noStore }))
      let refusedEarly = 0
      for (const answer of pending) void answer.then(() => refusedEarly++)
      await until(() => mock.held + refusedEarly >= 50, 'all 50 requests held or refused', 30_000)
      mock.release()
      const answers = await Promise.all(pending)
      const statuses = answers.map((a) => a.status)
      t.equal(statuses.filter((s) => s === 200).length, 10, '10 fit the budget')
      t.equal(statuses.filter((s) => s === 402).length, 40, 'the other 40 are refused')
      t.ok(answers.filter((a) => a.status === 402).every((a) => a.body.error === 'Budget exceeded'))

      const usage = await call(`${url}/api/usage?projectId=${seeded.projectId}`, { key })
      t.equal(usage.status, 200)
      t.ok(usage.body.budget.used <= usage.body.budget.limit, 'used never passes the limit')
      const charged = answers.filter((a) => a.status === 200).reduce((sum, a) => sum + Math.round(Number(a.headers['x-credits-charged']) * 1e6), 0)
      t.equal(Math.round(usage.body.budget.used * 1e6), charged, 'the charges add up to the budget used')
      t.equal(usage.body.models['gpt-4o'].requests, 10)
      t.equal(usage.body.cache.misses, 10)

      const store = openStore(dataDir)
      t.teardown(() => store.close())
      const ledger = store
        .forPlugin('metering')
        .open<{ projectId: string; costMicros: number; promptTokens: number; completionTokens: number }>('ledger', { records: true })
      const mine = [...ledger.getRange()].map((e) => e.value).filter((e) => e.projectId === seeded.projectId)
      t.equal(mine.length, 10, 'one ledger entry per settled request')
      t.equal(
        mine.reduce((s, e) => s + e.costMicros, 0),
        charged,
        'the ledger sums to the usage endpoint',
      )
      t.equal(
        mine.reduce((s, e) => s + e.promptTokens + e.completionTokens, 0),
        usage.body.models['gpt-4o'].tokens,
      )
    },
  )
}

t.test("the usage endpoint reports the spec's fields for each period", async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, { budgetDollars: 5 })
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  await call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content: 'hi' }] } })
  for (const period of ['day', 'week', 'month']) {
    const res = await call(`${url}/api/usage?projectId=${seeded.projectId}&period=${period}`, { key })
    t.equal(res.status, 200)
    t.match(res.body, {
      budget: { limit: 5, used: Number, remaining: Number },
      cache: { hits: 0, misses: 1, hitRate: 0 },
      models: { 'gpt-4o-mini': { requests: 1, tokens: Number, cost: Number } },
      period: { start: /^\d{4}-\d{2}-\d{2}$/, end: /^\d{4}-\d{2}-\d{2}$/ },
    })
    t.equal(res.body.budget.remaining, Math.round((5 - res.body.budget.used) * 1e6) / 1e6)
  }
  const missing = await call(`${url}/api/usage`, { key })
  t.equal(missing.status, 400)
  t.match(missing.body.error, /projectId is required/)
  const badPeriod = await call(`${url}/api/usage?projectId=${seeded.projectId}&period=year`, { key })
  t.equal(badPeriod.status, 400)
  t.match(badPeriod.body.error, /period must be day, week or month/)
})
