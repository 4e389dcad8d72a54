// Gateways sharing one PostgreSQL database keep one budget: concurrent requests spread over three
// of them never spend past the limit, every gateway reports the same usage, and a request that
// needs a hold while the database is away is answered 503 at once.
import t from 'tap'
import pg from 'pg'
import { call } from '../../helpers/http.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway, type GatewayUnderTest } from '../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { SHIPPED_TABLE } from '../../../proxy/pipeline/model-table.ts'
import { until } from '../../helpers/until.ts'

const body = { messages: [{ role: 'user', content: 'Summarize the quarterly numbers' }], model: 'gpt-4o', maxTokens: 1000 }
// Identical requests: without no-store the cache would answer all but the first.
const noStore = { 'cache-control': 'no-store' }

t.test('three gateways on one database', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  const databaseUrl = await server.freshDatabase(t)
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const env = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test', DATABASE_URL: databaseUrl }

  // The projects and keys are in the same database, so all three know them.
  const seedDir = freshDataDir(t)
  const probe = await seedProject(seedDir, {}, undefined, { databaseUrl })
  const first = await startTestGateway(t, { dataDir: seedDir, env })
  const promptTokens = Number(
    (await call(`${first.url}/api/ai/complete`, { key: probe.keys[0]!.key, body, headers: noStore })).headers['x-gateway-prompt-tokens'],
  )
  await first.gateway.close()
  const price = SHIPPED_TABLE.models['gpt-4o']!
  const worstMicros = Math.round(promptTokens * price.inputPerMillion + 1000 * price.outputPerMillion)
  const seeded = await seedProject(seedDir, { budgetDollars: (worstMicros * 10.5) / 1e6 }, undefined, { databaseUrl })
  const key = seeded.keys[0]!.key
  const gateways: GatewayUnderTest[] = []
  for (let i = 0; i < 3; i++) {
    gateways.push(await startTestGateway(t, { env }))
  }

  t.test('200 concurrent requests across the three against a budget that fits 10: 10 pass and used stays within the limit', async (t) => {
    // The provider holds its answers until every request has been admitted or refused, so all
    // 200 holds are decided before any settles (a settled request would free budget).
    mock.hold()
    const pending = Array.from({ length: 200 }, (_, i) => call(`${gateways[i % 3]!.url}/api/ai/complete`, { key, body, headers: noStore }))
    let refusedEarly = 0
    for (const answer of pending) void answer.then(() => refusedEarly++)
    await until(() => mock.held + refusedEarly >= 200, 'all 200 requests held or refused', 30_000)
    mock.release()
    const answers = await Promise.all(pending)
    const statuses = answers.map((a) => a.status)
    t.equal(statuses.filter((s) => s === 200).length, 10, '10 fit the budget')
    t.equal(statuses.filter((s) => s === 402).length, 190, 'the others are refused')

    const charged = answers.filter((a) => a.status === 200).reduce((sum, a) => sum + Math.round(Number(a.headers['x-credits-charged']) * 1e6), 0)
    // A gateway counts its own answers at once and the others' once they commit, just after their
    // answers (docs/budgets-and-metering.md): each gateway comes to report all ten, never more.
    for (const gateway of gateways) {
      let usage: Awaited<ReturnType<typeof call>> | undefined
      await until(
        async () => {
          usage = await call(`${gateway.url}/api/usage?projectId=${seeded.projectId}`, { key })
          t.ok(Math.round(usage.body.budget.used * 1e6) <= charged, 'never more than the answers charged')
          return usage.body.models['gpt-4o']?.requests === 10
        },
        "the other gateways' charges committed",
        10_000,
      )
      t.equal(usage!.status, 200)
      t.ok(usage!.body.budget.used <= usage!.body.budget.limit, 'used never passes the limit')
      t.equal(Math.round(usage!.body.budget.used * 1e6), charged, 'every gateway reports the charges of all three')
    }

    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    t.teardown(() => client.end())
    const ledger = await client.query<{ n: number; micros: string }>(
      "SELECT count(*)::int AS n, sum((entry->>'costMicros')::bigint) AS micros FROM metering_ledger WHERE project_id = $1",
      [seeded.projectId],
    )
    t.same(ledger.rows[0], { n: 10, micros: String(charged) }, 'one ledger entry per settled request')
    const holds = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM metering_holds')
    t.equal(holds.rows[0]!.n, 0, 'no hold is left')
  })

  t.test('with the database away, a request that needs a hold is answered 503 at once', async (t) => {
    await server.stop()
    const started = performance.now()
    const answer = await call(`${gateways[0]!.url}/api/ai/complete`, { key, body, headers: noStore })
    t.equal(answer.status, 503)
    t.match(answer.body, { code: 'dependency_unavailable', dependency: 'postgres' })
    t.ok(answer.headers['retry-after'] !== undefined, 'with retry-after')
    t.ok(performance.now() - started < 3_000, 'fast, not a hang')
    await server.start()
    const usage = await call(`${gateways[1]!.url}/api/usage?projectId=${seeded.projectId}`, { key })
    t.equal(usage.status, 200, 'served again once the database is back')
  })
})
