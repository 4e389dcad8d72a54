// Three gateway processes, each with its own data directory, on one PostgreSQL and one Redis, as
// three hosts behind a load balancer would run: keys, limits, budgets and cached answers are one
// across them, and Redis going away answers 503 on every one of them until it is back.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { call } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { REDIS_MISSING, startRedis } from '../helpers/redis-server.ts'
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, TEST_SECRET } from '../helpers/start-gateway.ts'
import { SHIPPED_TABLE } from '../../proxy/pipeline/model-table.ts'
import { until } from '../helpers/until.ts'

// Three gateways start and stop in each test: on a loaded 2-core
// machine the whole file can pass tap's 120 s per file.
t.setTimeout(300_000)

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const noStore = { 'cache-control': 'no-store' }

t.test('three gateway processes on one PostgreSQL and one Redis', { skip: POSTGRES_MISSING || REDIS_MISSING }, async (t) => {
  const postgres = await startPostgres(t)
  const redis = await startRedis(t)
  const databaseUrl = await postgres.freshDatabase(t)
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    TOLLGATE_SECRET: TEST_SECRET,
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
    PORT: '0',
    LOG_LEVEL: 'silent',
  }
  const hosts: SpawnedGateway[] = await Promise.all([1, 2, 3].map(() => spawnGateway(t, [CLI, 'serve', '--data', freshDataDir(t)], env)))

  async function tollgate(t: Test, ...args: string[]): Promise<any> {
    const { stdout } = await run(process.execPath, [CLI, ...args, '--json', '--data', freshDataDir(t)], { env })
    return JSON.parse(stdout)
  }
  async function newKey(t: Test, plan: string, budget = 1000): Promise<{ projectId: string; keyId: string; key: string }> {
    const project = await tollgate(t, 'projects', 'create', '--name', `${plan} team`, '--plan', plan, '--budget', String(budget))
    const made = await tollgate(t, 'keys', 'create', '--project', project.id, '--type', 'sk', '--env', 'prod', '--name', 'service')
    return { projectId: project.id, keyId: made.id, key: made.key }
  }

  t.test('a key made on the database works on every host at its first request; deactivated, on none', async (t) => {
    const { keyId, key } = await newKey(t, 'enterprise')
    for (const host of hosts) t.equal((await call(`${host.url}/api/health`, { key })).status, 200)
    await tollgate(t, 'keys', 'deactivate', keyId)
    for (const host of hosts) {
      const started = performance.now()
      let status = 0
      while ((status = (await call(`${host.url}/api/health`, { key })).status) !== 401 && performance.now() - started < 5_000);
      t.equal(status, 401, 'refused')
      t.comment(`refused ${(performance.now() - started).toFixed(1)} ms after the command returned`)
    }
  })

  t.test('a free-plan key sent to all three at once is admitted within one limit, not three', async (t) => {
    const { key } = await newKey(t, 'free')
    const started = performance.now()
    const answers = await Promise.all(Array.from({ length: 90 }, (_, i) => call(`${hosts[i % 3]!.url}/api/health`, { key })))
    const elapsedMinutes = (performance.now() - started) / 60_000
    const admitted = answers.filter((a) => a.status === 200).length
    // The free plan: a burst of 20, then 10 a minute.
    const limit = 20 + Math.floor(elapsedMinutes * 10)
    t.ok(admitted <= limit, `${admitted} admitted, the limit ${limit}`)
    t.ok(admitted >= 20, 'the burst is all admitted')
    t.equal(answers.filter((a) => a.status === 429).length, 90 - admitted, 'the rest refused with 429')
  })

  t.test('200 concurrent requests across the three against a budget that fits 10: used stays within the limit', async (t) => {
    const body = { messages: [{ role: 'user', content: 'Summarize the quarterly numbers' }], model: 'gpt-4o', maxTokens: 1000 }
    const probe = await newKey(t, 'enterprise')
    const promptTokens = Number((await call(`${hosts[0]!.url}/api/ai/complete`, { key: probe.key, body, headers: noStore })).headers['x-gateway-prompt-tokens'])
    const price = SHIPPED_TABLE.models['gpt-4o']!
    const worstMicros = Math.round(promptTokens * price.inputPerMillion + 1000 * price.outputPerMillion)
    const { projectId, key } = await newKey(t, 'enterprise', (worstMicros * 10.5) / 1e6)
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(`${hosts[i % 3]!.url}/api/ai/complete`, { key, body, headers: noStore })))
    const admitted = answers.filter((a) => a.status === 200).length
    // Answers that settle below their hold give budget back, so more than 10 may pass; never past the limit.
    t.ok(admitted >= 10, `${admitted} admitted: at least the 10 that fit`)
    t.equal(answers.filter((a) => a.status !== 200 && a.status !== 402).length, 0, 'every other answer is a 402')
    // A host counts its own answers at once and the others' once they commit, just after their
    // answers (docs/budgets-and-metering.md): each comes to count them all, never more.
    for (const host of hosts) {
      let usage: Awaited<ReturnType<typeof call>> | undefined
      await until(
        async () => {
          usage = await call(`${host.url}/api/usage?projectId=${projectId}`, { key })
          return usage.body.models['gpt-4o']?.requests >= admitted
        },
        "the other hosts' charges committed",
        10_000,
      )
      t.ok(usage!.body.budget.used <= usage!.body.budget.limit, `used ${usage!.body.budget.used} within the limit ${usage!.body.budget.limit}`)
      t.equal(usage!.body.models['gpt-4o'].requests, admitted, 'every host counts the requests of all three')
    }
  })

  t.test('a miss on one host is a hit on another', async (t) => {
    const { key } = await newKey(t, 'enterprise')
    const body = { messages: [{ role: 'user', content: 'Which host answers this?' }] }
    const calls = mock.requests.length
    t.equal((await call(`${hosts[0]!.url}/api/ai/complete`, { key, body })).headers['x-cache-status'], 'MISS')
    for (const host of hosts.slice(1)) {
      const answer = await call(`${host.url}/api/ai/complete`, { key, body })
      t.equal(answer.headers['x-cache-status'], 'HIT')
      t.equal(answer.headers['x-credits-charged'], '0.000000')
    }
    t.equal(mock.requests.length - calls, 1, 'one call to the provider')
  })

  t.test(
    'Redis stopped: limited keys get 503 on every host once its leased slice is spent, unlimited ones are served and every host stays ready, none crashes; back, they are served again',
    async (t) => {
      const [{ key }, { key: unlimited }] = await Promise.all([newKey(t, 'pro'), newKey(t, 'enterprise')])
      for (const host of hosts) t.equal((await call(`${host.url}/api/health`, { key })).status, 200)
      await redis.stop()
      for (const host of hosts) {
        // A slice is at most 256 requests beyond the one that leased it.
        let fromSlice = 0
        let answer = await call(`${host.url}/api/health`, { key })
        while (answer.status === 200 && fromSlice < 300) {
          fromSlice++
          answer = await call(`${host.url}/api/health`, { key })
        }
        t.ok(fromSlice <= 256, `${fromSlice} served from the slice the host held`)
        t.equal(answer.status, 503)
        t.match(answer.body, { code: 'dependency_unavailable', dependency: 'redis' })
        t.equal(answer.headers['retry-after'], '1')
        t.equal((await call(`${host.url}/api/health`, { key: unlimited })).status, 200, 'an unlimited key is served')
        t.match(await call(`${host.url}/readyz`), { status: 200, body: { status: 'degraded', degraded: ['redis'] } }, 'so a balancer keeps the host')
      }
      await redis.start()
      for (const host of hosts) {
        const started = performance.now()
        let status = 0
        while ((status = (await call(`${host.url}/api/health`, { key })).status) !== 200 && performance.now() - started < 10_000) {
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        t.equal(status, 200, 'served again')
        t.equal(host.child.exitCode, null, 'still running')
      }
    },
  )
})
