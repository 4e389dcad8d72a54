// A key's own monthly budget and rate limit, beside its project's: answered 402 and 429 as for a
// project, in each dialect's error type. Holds on a key's budget, like a project's, never let
// concurrent requests spend past it: in memory, in the shared LMDB store and on PostgreSQL.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import { SHIPPED_TABLE } from '../../proxy/pipeline/model-table.ts'
import { call } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

const body = { messages: [{ role: 'user', content: 'Summarize the quarterly numbers' }], model: 'gpt-4o', maxTokens: 1000 }
// Identical requests: without no-store the cache would answer all but the first.
const noStore = { 'cache-control': 'no-store' }

async function fiftyAgainstFive(t: Test, shared: boolean, databaseUrl?: string) {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const where = databaseUrl === undefined ? {} : { databaseUrl }
  const env = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test', ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) }
  const plugins = { metering: { shared } }
  const probe = await seedProject(dataDir, {}, undefined, where)
  const first = await startTestGateway(t, { dataDir, env, overrides: { plugins } })
  const promptTokens = Number(
    (await call(`${first.url}/api/ai/complete`, { key: probe.keys[0]!.key, body, headers: noStore })).headers['x-gateway-prompt-tokens'],
  )
  await first.gateway.close()

  const price = SHIPPED_TABLE.models['gpt-4o']!
  const worstMicros = Math.round(promptTokens * price.inputPerMillion + 1000 * price.outputPerMillion)
  // The project could pay for all 50; the key's own budget fits 5 holds.
  const seeded = await seedProject(
    dataDir,
    { budgetDollars: 1000 },
    [
      { type: 'sk', env: 'prod', budgetDollars: (worstMicros * 5.5) / 1e6 },
      { type: 'sk', env: 'prod' },
    ],
    where,
  )
  const { url } = await startTestGateway(t, { dataDir, env, overrides: { plugins } })
  const [limited, other] = seeded.keys as [{ id: string; key: string }, { id: string; key: string }]

  // The provider holds its answers until every request has been admitted or refused, so all 50
  // holds are decided before any settles (a settled request would give budget back).
  mock.hold()
  const pending = Array.from({ length: 50 }, () => call(`${url}/api/ai/complete`, { key: limited.key, body, headers: noStore }))
  let refusedEarly = 0
  for (const answer of pending) void answer.then(() => refusedEarly++)
  const deadline = Date.now() + 60_000
  while (mock.held + refusedEarly < 50 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  mock.release()
  const answers = await Promise.all(pending)
  t.equal(answers.filter((a) => a.status === 200).length, 5, "5 fit the key's budget")
  const refused = answers.filter((a) => a.status === 402)
  t.equal(refused.length, 45, 'the other 45 are refused')
  t.match(refused[0]?.body, { error: 'Budget exceeded', message: /the key has \$[\d.]+ left of its \$[\d.]+ monthly budget/ })
  const charged = answers.filter((a) => a.status === 200).reduce((sum, a) => sum + Math.round(Number(a.headers['x-credits-charged']) * 1e6), 0)
  t.ok(charged <= worstMicros * 5.5, 'what the key spent stays within its budget')

  const byKey = await call(`${url}/api/usage?projectId=${seeded.projectId}&by=key`, { key: other.key })
  t.match(byKey.body.breakdown, [{ key: limited.id, requests: 5 }], 'only the admitted requests are recorded')
  t.equal(Math.round(byKey.body.breakdown[0].costDollars * 1e6), charged)
  t.equal((await call(`${url}/api/ai/complete`, { key: other.key, body, headers: noStore })).status, 200, 'another key of the project is not held back')
}

t.test('50 concurrent requests against a key budget that fits 5: exactly 5 pass (holds in memory)', (t) => fiftyAgainstFive(t, false))
t.test('the same with holds in the shared store', (t) => fiftyAgainstFive(t, true))
t.test('the same on PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  await fiftyAgainstFive(t, false, await server.freshDatabase(t))
})

t.test("a key's budget and rpm are answered 402 and 429 with each dialect's error types", async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, { plan: 'enterprise' }, [
    { type: 'sk', env: 'prod', budgetDollars: 0.000001 },
    { type: 'sk', env: 'prod', rpm: 2 },
  ])
  const { url } = await startTestGateway(t, { dataDir })
  const [broke, slow] = seeded.keys.map((k) => k.key) as [string, string]
  const question = { role: 'user' as const, content: 'What is the weather in Paris?' }

  const openai = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 })
  const budget = await openai(broke)
    .chat.completions.create({ model: 'gpt-4o-mini', messages: [question] })
    .catch((err: unknown) => err)
  t.ok(budget instanceof OpenAI.APIError && budget.status === 402, 'OpenAI: a 402')
  t.match((budget as InstanceType<typeof OpenAI.APIError>).error, { type: 'insufficient_quota', code: 'budget_exceeded', message: /the key has/ })

  const anthropic = (apiKey: string) => new Anthropic({ apiKey, baseURL: url, maxRetries: 0 })
  const message = { model: 'claude-3-haiku-20240307', max_tokens: 50, messages: [question] }
  const paid = await anthropic(broke)
    .messages.create(message)
    .catch((err: unknown) => err)
  t.ok(paid instanceof Anthropic.PaymentRequiredError, 'Anthropic: PaymentRequiredError')
  t.match((paid as InstanceType<typeof Anthropic.PaymentRequiredError>).error, { type: 'error', error: { type: 'billing_error' } })

  // Two requests a minute: the third of either dialect within the minute is refused.
  await openai(slow).chat.completions.create({ model: 'gpt-4o-mini', messages: [question] })
  await anthropic(slow).messages.create(message)
  const tooMany = await openai(slow)
    .chat.completions.create({ model: 'gpt-4o-mini', messages: [question] })
    .catch((err: unknown) => err)
  t.ok(tooMany instanceof OpenAI.RateLimitError, 'OpenAI: RateLimitError')
  t.match((tooMany as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after'), /^\d+$/)
  t.equal((tooMany as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('x-ratelimit-limit'), '2')
  const tooManyToo = await anthropic(slow)
    .messages.create(message)
    .catch((err: unknown) => err)
  t.ok(tooManyToo instanceof Anthropic.RateLimitError, 'Anthropic: RateLimitError')
  const native = await call(`${url}/api/ai/complete`, { key: slow, body: { messages: [question] } })
  t.equal(native.status, 429)
  t.match(native.body.message, /2 requests per minute/)
})
