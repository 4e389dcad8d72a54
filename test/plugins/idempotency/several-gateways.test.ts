// Two gateways behind a load balancer, on one PostgreSQL database (DATABASE_URL), each with its
// own data directory: a retry sent to the other gateway is replayed there and charged once, the
// key used with another request is refused there, two copies racing on both reach the model once,
// and with the database away a request under a key is answered 503 rather than run unrecorded.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { body, idempotencyGateway, until } from './fixtures.ts'

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

  t.test('the same key and body on A then on B: B replays A\'s answer, and the ledger counts one request', async (t) => {
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
