// The provider pass-through holds a request's worst case like a model route does, so 200
// concurrent forwarded requests cannot spend past the project's limit: not on one process, not
// on `serve --workers 2` sharing one store, not on three gateways sharing PostgreSQL.
import t, { type Test } from 'tap'
import { fileURLToPath } from 'node:url'
import { call, type JsonAnswer } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { spawnGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../helpers/start-gateway.ts'
import { until } from '../helpers/until.ts'
import { SHIPPED_TABLE } from '../../proxy/pipeline/model-table.ts'

const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const PROSE = 'The quarterly report shows steady growth in every region, with the strongest gains in the north. '.repeat(20)
const MAX_TOKENS = 400
const BODY = {
  model: 'gpt-4o',
  max_tokens: MAX_TOKENS,
  messages: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: PROSE },
  ],
}
const PRICE = SHIPPED_TABLE.models['gpt-4o']!
/** The request's worst case: every byte of its body a prompt token, and every token max_tokens allows. */
const WORST_DOLLARS = (Buffer.byteLength(JSON.stringify(BODY)) * PRICE.inputPerMillion + MAX_TOKENS * PRICE.outputPerMillion) / 1e6
/** A provider takes its time: every request that starts meanwhile is decided before any is settled. */
const LATENCY_MS = 100
/** Fits ten requests' worst case. */
const BUDGET_DOLLARS = Math.round(WORST_DOLLARS * 10.5 * 1e6) / 1e6

/** Sends 200 requests at once over `urls` in turn; checks the answers, and returns how many were forwarded. */
async function blast(t: Test, urls: readonly string[], key: string): Promise<number> {
  const answers: JsonAnswer[] = await Promise.all(
    Array.from({ length: 200 }, (_, i) => call(`${urls[i % urls.length]}/api/providers/openai/v1/chat/completions`, { key, body: BODY })),
  )
  const admitted = answers.filter((a) => a.status === 200).length
  const refused = answers.filter((a) => a.status === 402)
  t.ok(admitted >= 10, `${admitted} admitted: at least the 10 that fit`)
  t.equal(admitted + refused.length, 200, 'every other answer is a 402')
  t.same(refused[0]?.body, { error: 'Budget exceeded', code: 'budget_exceeded', message: refused[0]?.body.message }, "in the spec's shape")
  return admitted
}

/** /api/usage once every admitted request is in it; used never above the limit. */
async function checkUsage(t: Test, url: string, key: string, projectId: string, admitted: number): Promise<void> {
  let usage: any
  await until(async () => {
    usage = (await call(`${url}/api/usage?projectId=${projectId}`, { key })).body
    return usage.models?.['gpt-4o']?.requests === admitted
  }, 'every admitted request to be settled')
  const spent = usage.budget.used / BUDGET_DOLLARS
  t.comment(`admitted ${admitted} of 200; spent ${(spent * 100).toFixed(0)}% of the limit`)
  t.ok(usage.budget.used <= usage.budget.limit, `used ${usage.budget.used} within the limit ${usage.budget.limit}`)
}

t.test('one process: 200 concurrent pass-through requests against a budget that fits 10 stay within it', async (t) => {
  const mock = await startMockUpstream({ latencyMs: LATENCY_MS })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const { projectId, keys } = await seedProject(dataDir, { budgetDollars: BUDGET_DOLLARS })
  const { url } = await startTestGateway(t, { dataDir, env: { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test' } })
  const admitted = await blast(t, [url], keys[0]!.key)
  t.equal(mock.requests.length, admitted, 'refused requests never reach the provider')
  await checkUsage(t, url, keys[0]!.key, projectId, admitted)
})

t.test('serve --workers 2: the holds live in the shared store', async (t) => {
  const mock = await startMockUpstream({ latencyMs: LATENCY_MS })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const { projectId, keys } = await seedProject(dataDir, { budgetDollars: BUDGET_DOLLARS })
  const { url } = await spawnGateway(t, [CLI, 'serve', '--workers', '2', '--data', dataDir], {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
  })
  const admitted = await blast(t, [url], keys[0]!.key)
  t.equal(mock.requests.length, admitted, 'refused requests never reach the provider')
  await checkUsage(t, url, keys[0]!.key, projectId, admitted)
})

t.test('three gateways on one PostgreSQL: the holds live in the database', { skip: POSTGRES_MISSING }, async (t) => {
  const postgres = await startPostgres(t)
  const databaseUrl = await postgres.freshDatabase(t)
  const mock = await startMockUpstream({ latencyMs: LATENCY_MS })
  t.teardown(() => mock.close())
  const { projectId, keys } = await seedProject(freshDataDir(t), { budgetDollars: BUDGET_DOLLARS }, undefined, { databaseUrl })
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
  }
  const hosts = await Promise.all([1, 2, 3].map(() => spawnGateway(t, [CLI, 'serve', '--data', freshDataDir(t)], env)))
  const urls = hosts.map((host) => host.url)
  const admitted = await blast(t, urls, keys[0]!.key)
  t.equal(mock.requests.length, admitted, 'refused requests never reach the provider')
  for (const url of urls) await checkUsage(t, url, keys[0]!.key, projectId, admitted)
})
