// Two gateways behind a load balancer, on one PostgreSQL database (DATABASE_URL), each with its
// own data directory: a retry sent to the other gateway is replayed there and charged once, the
// key used with another request is refused there, two copies racing on both reach the model once,
// a kill -9 between the two commits still charges once, and with the database away a request
// under a key is answered 503 rather than run unrecorded.
import t from 'tap'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { request } from 'undici'
import { crashAt } from '../../helpers/crash-at.ts'
import { call } from '../../helpers/http.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { body, idempotencyGateway } from './fixtures.ts'
import { until } from '../../helpers/until.ts'

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))

t.test('two gateways on one database', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)

  async function twoGateways(t: Parameters<typeof idempotencyGateway>[0]) {
    const databaseUrl = await server.freshDatabase(t)
    const mock = await startMockUpstream()
    t.teardown(() => mock.close())
    const a = await idempotencyGateway(t, { mock, databaseUrl })
    const b = await idempotencyGateway(t, { mock, databaseUrl, seeded: { projectId: a.projectId, key: a.key } })
    return { a, b, mock }
  }

  t.test("the same key and body on A then on B: B replays A's answer, and the ledger counts one request", async (t) => {
    const { a, b, mock } = await twoGateways(t)
    const first = await a.send('complete', 'order-1')
    t.equal(first.status, 200)
    const retry = await b.send('complete', 'order-1')
    t.equal(retry.status, 200)
    t.equal(retry.headers['x-idempotent-replay'], 'true')
    t.equal(retry.headers['x-original-request-id'], first.headers['x-request-id'])
    t.strictSame(retry.body, first.body)
    t.equal(mock.requests.length, 1, 'the model was called once')
    t.equal(await a.requestsMetered(), 1)
    t.equal(await b.requestsMetered(), 1)
    t.equal(await b.budgetUsed(), await a.budgetUsed())
  })

  t.test('the same key with another body on B is a 409', async (t) => {
    const { a, b, mock } = await twoGateways(t)
    t.equal((await a.send('complete', 'order-2')).status, 200)
    const other = await b.send('complete', 'order-2', { ...body, messages: [{ role: 'user', content: 'Name three rivers of Asia' }] })
    t.equal(other.status, 409)
    t.equal(other.body.code, 'idempotency_key_reused')
    t.equal(mock.requests.length, 1)
  })

  t.test('the same key sent to both at once: the model is called once; the other is told to retry, and its retry is replayed', async (t) => {
    const { a, b, mock } = await twoGateways(t)
    mock.hold()
    const answers = [a.send('complete', 'order-3'), b.send('complete', 'order-3')]
    const settled: Array<Awaited<(typeof answers)[number]> | undefined> = [undefined, undefined]
    answers.forEach((answer, i) => void answer.then((value) => (settled[i] = value)))
    await until(() => mock.held === 1 && settled.some((s) => s !== undefined), 'one reached the model, the other was answered')
    const loser = settled.findIndex((s) => s !== undefined)
    t.equal(settled[loser]!.status, 409)
    t.equal(settled[loser]!.body.code, 'idempotency_key_in_use')
    t.equal(settled[loser]!.headers['retry-after'], '1')
    mock.release()
    const won = await answers[1 - loser]!
    t.equal(won.status, 200)
    const retry = await [a, b][loser]!.send('complete', 'order-3')
    t.equal(retry.headers['x-idempotent-replay'], 'true')
    t.strictSame(retry.body, won.body)
    t.equal(mock.requests.length, 1, 'the model was called once')
    t.equal(await a.requestsMetered(), 1)
  })

  t.test("a kill -9 on A between the idempotency commit and the ledger's: the retry on B is replayed, and the original charged once", async (t) => {
    const databaseUrl = await server.freshDatabase(t)
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    t.teardown(() => db.end())
    const dataDir = freshDataDir(t)
    const made = await seedProject(dataDir, {}, undefined, { databaseUrl })
    const key = made.keys[0]!.key
    const crash = crashAt('idempotency-commit')
    const doomed = await spawnGateway(t, [...crash.nodeArgs, CLI, 'serve', '--data', dataDir], {
      ...process.env,
      TOLLGATE_SECRET: TEST_SECRET,
      PORT: '0',
      LOG_LEVEL: 'silent',
      LOCAL_CHUNK_DELAY_MS: '0',
      DATABASE_URL: databaseUrl,
      ...crash.env,
    })
    const exited = once(doomed.child, 'exit')
    const headers = { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'crash-1' }
    await request(`${doomed.url}/api/ai/complete`, { method: 'POST', headers, body: JSON.stringify(body) }).then(
      (res) => res.body.text(),
      () => undefined,
    )
    const [, signal] = await exited
    t.equal(signal, 'SIGKILL', 'the gateway was killed at the fault point')
    const stored = (await db.query(`SELECT state, request_id FROM idempotency_records WHERE key = 'crash-1'`)).rows[0]
    t.equal(stored?.state, 'done', 'the answer was committed under the key')
    const original = stored?.request_id as string
    t.same((await db.query('SELECT id FROM metering_ledger')).rows, [], 'the ledger never saw the request')

    const b = await startTestGateway(t, { env: { DATABASE_URL: databaseUrl } })
    const retry = await call(`${b.url}/api/ai/complete`, { key, body, headers: { 'idempotency-key': 'crash-1' } })
    t.equal(retry.status, 200)
    t.equal(retry.headers['x-idempotent-replay'], 'true')
    t.equal(retry.headers['x-original-request-id'], original)
    t.equal((await call(`${b.url}/api/ai/complete`, { key, body, headers: { 'idempotency-key': 'crash-1' } })).headers['x-idempotent-replay'], 'true')
    const ledger = (await db.query<{ id: string; cost: string }>(`SELECT id, entry->>'costMicros' AS cost FROM metering_ledger`)).rows
    t.same(
      ledger.map((e) => e.id),
      [original],
      'the ledger holds the original request, once',
    )
    const budget = (
      await db.query<{ used_micros: string; reserved_micros: string }>('SELECT used_micros, reserved_micros FROM metering_budgets WHERE project_id = $1', [
        made.projectId,
      ])
    ).rows
    t.ok(Number(ledger[0]?.cost) > 0)
    // Holds are carved from each gateway's lease on the month (a metering_holds row it owns): the
    // dead gateway's is given back once its owner lease runs out (test/plugins/metering/shared-crash.test.ts).
    const leased = (await db.query<{ micros: string }>('SELECT coalesce(sum(micros), 0)::bigint AS micros FROM metering_holds')).rows[0]!.micros
    t.same(
      budget.map((row) => [Number(row.used_micros), Number(row.reserved_micros)]),
      [[Number(ledger[0]?.cost), Number(leased)]],
      "charged exactly once, nothing held beyond the gateways' leases",
    )
  })

  t.test('with the database away, a request under a key is a 503 and never reaches the model', async (t) => {
    const { a, mock } = await twoGateways(t)
    t.equal((await a.send('complete', 'warm-up')).status, 200)
    await server.stop()
    const away = await a.send('complete', 'order-4')
    t.equal(away.status, 503)
    t.equal(away.body.code, 'dependency_unavailable')
    t.ok(away.headers['retry-after'])
    t.equal(mock.requests.length, 1, 'only the warm-up reached the model')
    t.match((await call(`${a.url}/metrics`)).body, /tollgate_plugin_failures_total\{plugin="idempotency"\} 1/, 'refused by the idempotency plugin')
    await server.start()
    const back = await a.send('complete', 'order-4')
    t.equal(back.status, 200, 'served again once the database is back')
  })
})
