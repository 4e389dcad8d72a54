// On PostgreSQL an answer does not wait for its settlement's commit: the charge is journaled on
// the gateway's disk and committed after. Proved by holding PostgreSQL's ledger table locked, so
// that no settlement can commit: answers still come; a kill -9 then loses none of them, each
// counted once after the restart; and with the database away, answers go on from the budget
// lease and are committed once it is back.
import t, { type Test } from 'tap'
import { once } from 'node:events'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { request } from 'undici'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { until } from '../../helpers/until.ts'

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))
// Far beyond any commit on a loaded machine: an answer that waited for the locked table would not come within it.
const ANSWER_DEADLINE_MS = 10_000

interface Answer {
  readonly status: number
  readonly id: string
  readonly chargedMicros: number
}

async function ask(url: string, key: string, content: string): Promise<Answer> {
  const res = await request(`${url}/api/ai/complete`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({ messages: [{ role: 'user', content }], maxTokens: 64 }),
    headersTimeout: ANSWER_DEADLINE_MS,
    bodyTimeout: ANSWER_DEADLINE_MS,
  })
  await res.body.text()
  return { status: res.statusCode, id: String(res.headers['x-request-id']), chargedMicros: Math.round(Number(res.headers['x-credits-charged']) * 1e6) }
}

async function setup(t: Test, budgetDollars = 1000) {
  const server = await startPostgres(t)
  const databaseUrl = await server.freshDatabase(t)
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const seedDir = freshDataDir(t)
  const seeded = await seedProject(seedDir, { budgetDollars }, undefined, { databaseUrl })
  const env = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test', DATABASE_URL: databaseUrl }
  /**
   * Holds the ledger table locked against writes (reads go on) until `unlock` is called, or
   * `asked` fails: a gateway stopping would wait for its commits.
   */
  async function lockLedger(): Promise<{ unlock: () => Promise<void>; asked: <T>(answers: Promise<T>) => Promise<T> }> {
    const locker = new pg.Client({ connectionString: databaseUrl })
    await locker.connect()
    await locker.query('BEGIN')
    await locker.query('LOCK TABLE metering_ledger IN EXCLUSIVE MODE')
    let unlocked: Promise<void> | undefined
    const unlock = () => (unlocked ??= locker.query('COMMIT').then(() => locker.end()))
    return {
      unlock,
      asked: (answers) =>
        answers.catch(async (err: unknown) => {
          await unlock()
          throw err
        }),
    }
  }
  /** What PostgreSQL holds of the project, read on a connection of its own (the server may have restarted). */
  async function ledger(): Promise<{ ids: string[]; usedMicros: number; reservedMicros: number }> {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      return await read(client)
    } finally {
      await client.end()
    }
  }
  async function read(client: pg.Client): Promise<{ ids: string[]; usedMicros: number; reservedMicros: number }> {
    const entries = await client.query<{ id: string }>('SELECT id FROM metering_ledger WHERE project_id = $1', [seeded.projectId])
    const row = await client.query<{ used: string; reserved: string }>(
      'SELECT coalesce(sum(used_micros), 0)::bigint AS used, coalesce(sum(reserved_micros), 0)::bigint AS reserved FROM metering_budgets WHERE project_id = $1',
      [seeded.projectId],
    )
    return { ids: entries.rows.map((r) => r.id), usedMicros: Number(row.rows[0]!.used), reservedMicros: Number(row.rows[0]!.reserved) }
  }
  return { server, mock, databaseUrl, env, seeded, key: seeded.keys[0]!.key, seedDir, lockLedger, ledger }
}

const total = (answers: readonly Answer[]) => answers.reduce((sum, a) => sum + a.chargedMicros, 0)

t.test('a lone request is answered while PostgreSQL cannot commit its settlement, which commits once it can', { skip: POSTGRES_MISSING }, async (t) => {
  const { env, key, seedDir, lockLedger, ledger } = await setup(t)
  const gateway = await startTestGateway(t, { dataDir: seedDir, env })
  const { unlock, asked } = await lockLedger()
  const answer = await asked(ask(gateway.url, key, 'answer me before the commit'))
  t.equal(answer.status, 200, 'answered with the ledger locked: no commit was waited for')
  t.ok(answer.chargedMicros > 0, 'and charged')
  t.same((await ledger()).ids, [], 'the settlement is not in PostgreSQL yet')
  await unlock()
  await until(async () => (await ledger()).ids.length === 1, 'the settlement committed', ANSWER_DEADLINE_MS)
  t.match(await ledger(), { ids: [answer.id], usedMicros: answer.chargedMicros }, 'once, at the charge the client was told')
})

t.test('a kill -9 right after answering: after the restart the ledger holds each answer once', { skip: POSTGRES_MISSING }, async (t) => {
  const { env, key, lockLedger, ledger } = await setup(t)
  const dataDir = freshDataDir(t)
  const doomed = await spawnGateway(t, [CLI, 'serve', '--data', dataDir], {
    ...process.env,
    ...env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
  })
  const committed: Answer[] = []
  for (let i = 0; i < 3; i++) committed.push(await ask(doomed.url, key, `committed ${i}`))
  await until(async () => (await ledger()).ids.length === 3, 'the first answers committed', ANSWER_DEADLINE_MS)
  const { unlock, asked } = await lockLedger()
  const journaled: Answer[] = []
  for (let i = 0; i < 5; i++) journaled.push(await asked(ask(doomed.url, key, `journaled ${i}`)))
  t.same(
    [...committed, ...journaled].map((a) => a.status),
    Array(8).fill(200),
    'every request answered',
  )
  const exited = once(doomed.child, 'exit')
  doomed.child.kill('SIGKILL')
  await exited
  await unlock()
  t.ok(
    readdirSync(join(dataDir, 'metering')).some((name) => name.endsWith('.jsonl')),
    'the charges were journaled',
  )
  t.equal((await ledger()).ids.length, 3, 'the killed gateway committed none of the last five')

  const restarted = await startTestGateway(t, { dataDir, env })
  await restarted.gateway.close()
  const after = await ledger()
  t.same(after.ids.toSorted(), [...committed, ...journaled].map((a) => a.id).toSorted(), 'every answer is in the ledger, once')
  t.equal(after.usedMicros, total([...committed, ...journaled]), 'the budget was charged each answer exactly once')
  t.same(
    readdirSync(join(dataDir, 'metering')).filter((name) => name.endsWith('.jsonl')),
    [],
    'the replayed journal is gone',
  )
})

t.test(
  'two gateways, one killed with charges only journaled: the budget is never over and each answer is counted once',
  { skip: POSTGRES_MISSING },
  async (t) => {
    // About fifteen of these requests' holds fit: the budget binds within the test.
    const budgetDollars = 0.0007
    const { mock, env, key, seedDir, lockLedger, ledger } = await setup(t, budgetDollars)
    const dataDir = freshDataDir(t)
    const doomed = await spawnGateway(t, [CLI, 'serve', '--data', dataDir], {
      ...process.env,
      ...env,
      TOLLGATE_SECRET: TEST_SECRET,
      PORT: '0',
      LOG_LEVEL: 'silent',
    })
    const other = await startTestGateway(t, { dataDir: seedDir, env })
    const { unlock, asked } = await lockLedger()
    const journaled: Answer[] = []
    for (let i = 0; i < 3; i++) journaled.push(await asked(ask(doomed.url, key, `journaled ${i}`)))
    const exited = once(doomed.child, 'exit')
    doomed.child.kill('SIGKILL')
    await exited
    await unlock()
    // The other gateway is asked for more than is left at once, while the killed one's slice still
    // holds its answers' holds: the provider holds its answers until every hold is decided.
    mock.hold()
    const asking = Array.from({ length: 30 }, (_, i) => ask(other.url, key, `spent ${i}`))
    let refused = 0
    for (const answer of asking) void answer.then(() => refused++)
    await until(() => mock.held + refused >= 30, 'every request held or refused', ANSWER_DEADLINE_MS)
    mock.release()
    const spent = await Promise.all(asking)
    t.ok(
      spent.some((a) => a.status === 402),
      'the budget ran out',
    )
    const restarted = await startTestGateway(t, { dataDir, env })
    await restarted.gateway.close()
    await other.gateway.close()
    const answered = [...journaled, ...spent.filter((a) => a.status === 200)]
    const after = await ledger()
    t.same(after.ids.toSorted(), answered.map((a) => a.id).toSorted(), 'every answer of both is in the ledger, once')
    t.equal(after.usedMicros, total(answered), 'charged each once')
    t.ok(after.usedMicros <= budgetDollars * 1e6, `used ${after.usedMicros} µ$ never passes the limit`)
  },
)

t.test('with PostgreSQL away, answers go on from the budget lease and are committed once it is back', { skip: POSTGRES_MISSING }, async (t) => {
  const { server, env, key, seedDir, ledger } = await setup(t)
  // Renewed every second: the gateway keeps carving from its lease for the first two seconds of an outage.
  const gateway = await startTestGateway(t, { dataDir: seedDir, env, overrides: { plugins: { metering: { holdLeaseMs: 3_000 } } } })
  const before = await ask(gateway.url, key, 'before the outage')
  await until(async () => (await ledger()).ids.length === 1, 'the first answer committed', ANSWER_DEADLINE_MS)
  await server.stop()
  const during: Answer[] = []
  for (let i = 0; i < 3; i++) during.push(await ask(gateway.url, key, `during the outage ${i}`))
  t.same(
    during.map((a) => a.status),
    [200, 200, 200],
    'answered from the lease while PostgreSQL is away',
  )
  await server.start()
  await until(async () => (await ledger().catch(() => ({ ids: [] }))).ids.length === 4, 'the journaled charges committed once PostgreSQL is back', 20_000)
  const after = await ledger()
  t.same(after.ids.toSorted(), [before, ...during].map((a) => a.id).toSorted(), 'each once')
  t.equal(after.usedMicros, total([before, ...during]), 'the budget was charged each once')
})
