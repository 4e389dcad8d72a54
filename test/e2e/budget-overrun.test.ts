// A provider that counts more tokens than the gateway expects (another tokenizer, framing of its
// own) cannot push a budget past its limit: each request is held at a true upper bound of what it
// may cost, the charge never exceeds that hold, and what the provider counted beyond it is
// recorded as overage instead of being charged or dropped.
import t, { type Test } from 'tap'
import { fileURLToPath } from 'node:url'
import { call } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { spawnGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../helpers/start-gateway.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const PROSE = 'The quarterly report shows steady growth in every region, with the strongest gains in the north. '.repeat(20)
const noStore = { 'cache-control': 'no-store' }
const BUDGET_DOLLARS = 0.05

async function blast(t: Test, url: string, key: string, projectId: string, model: string) {
  const body = {
    messages: [
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: PROSE },
    ],
    model,
    maxTokens: 400,
  }
  const answers = await Promise.all(Array.from({ length: 200 }, () => call(`${url}/api/ai/complete`, { key, body, headers: noStore })))
  const statuses = answers.map((a) => a.status)
  const passed = statuses.filter((s) => s === 200).length
  t.ok(passed > 0, `${passed} requests fit the budget`)
  t.equal(passed + statuses.filter((s) => s === 402).length, 200, 'the rest are refused with 402')
  const usage = await call(`${url}/api/usage?projectId=${projectId}`, { key })
  t.ok(usage.body.budget.used <= BUDGET_DOLLARS, `used ${usage.body.budget.used} stays within the limit ${BUDGET_DOLLARS}`)
  t.ok(usage.body.budget.overage > 0, `the provider's excess is reported as overage (${usage.body.budget.overage})`)
  return usage.body
}

for (const [provider, model] of [
  ['openai', 'gpt-4o'],
  ['anthropic', 'claude-3-haiku-20240307'],
] as const) {
  t.test(`200 concurrent requests to ${provider} counting 3x what the gateway expects: used <= limit, the excess recorded as overage`, async (t) => {
    const mock = await startMockUpstream({ usageFactor: 3 })
    t.teardown(() => mock.close())
    const dataDir = freshDataDir(t)
    const seeded = await seedProject(dataDir, { budgetDollars: BUDGET_DOLLARS })
    const env = provider === 'openai' ? { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test' } : { ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'test' }
    const { url } = await startTestGateway(t, { dataDir, env })
    await blast(t, url, seeded.keys[0]!.key, seeded.projectId, model)
  })
}

t.test('the same holds with --workers 2, where the holds live in the shared store', async (t) => {
  const mock = await startMockUpstream({ usageFactor: 3 })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, { budgetDollars: BUDGET_DOLLARS })
  const { url } = await spawnGateway(t, [CLI, 'serve', '--workers', '2', '--data', dataDir], {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
  })
  await blast(t, url, seeded.keys[0]!.key, seeded.projectId, 'gpt-4o')
})
