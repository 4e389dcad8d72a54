// The settlements of one turn share one journal write, made before any of their answers leaves:
// a kill -9 right after the first answer of a batch (the provider answers many requests at once)
// loses no answered request's charge, and the restart counts each exactly once, on LMDB and on
// PostgreSQL (whose commits come after the answers, from the same journal).
import t, { type Test } from 'tap'
import { once } from 'node:events'
import pg from 'pg'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { crashAt } from '../../helpers/crash-at.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { until } from '../../helpers/until.ts'
import { inspect } from '../idempotency/fixtures.ts'

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))
const BATCH = 16

/** Starts a gateway set to die right after its first charged answer, sends it a batch at once: what the clients were told. */
async function batchUntilKilled(t: Test, dataDir: string, key: string, env: Readonly<Record<string, string>>): Promise<Map<string, number>> {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const crash = crashAt('answer-charged')
  const doomed = await spawnGateway(t, [...crash.nodeArgs, CLI, 'serve', '--data', dataDir], {
    ...process.env,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    OPENAI_BASE_URL: mock.url,
    OPENAI_API_KEY: 'test',
    ...env,
    ...crash.env,
  })
  const exited = once(doomed.child, 'exit')
  mock.hold()
  const answered = new Map<string, number>()
  const calls = Array.from({ length: BATCH }, async (_, i) => {
    try {
      const res = await request(`${doomed.url}/api/ai/complete`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
        body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `question ${i}` }] }),
      })
      await res.body.text()
      if (res.statusCode === 200) answered.set(String(res.headers['x-request-id']), Number(res.headers['x-credits-charged']))
    } catch {
      // Cut by the kill: never answered.
    }
  })
  await until(() => mock.held === BATCH, `${BATCH} requests held by the provider`, 30_000)
  // Every answer arrives in the same moment, so their settlements share a turn.
  mock.release()
  const [, signal] = await exited
  await Promise.all(calls)
  t.equal(signal, 'SIGKILL', 'the gateway was killed after its first charged answer')
  t.ok(answered.size >= 1, `${answered.size} answers reached the client`)
  return answered
}

/** Every answered request once in the ledger, at the charge its client was told, and the budget used their sum. */
function checkLedger(t: Test, answered: ReadonlyMap<string, number>, entries: ReadonlyArray<{ id: string; costMicros: number }>, usedMicros: number): void {
  const ids = entries.map((entry) => entry.id)
  t.same(
    [...answered.keys()].filter((id) => !ids.includes(id)),
    [],
    'every answered request is in the ledger',
  )
  t.equal(new Set(ids).size, ids.length, 'no request is in it twice')
  for (const entry of entries) {
    const told = answered.get(entry.id)
    if (told !== undefined) t.equal(entry.costMicros, Math.round(told * 1e6), `${entry.id} at the charge the client was told`)
  }
  t.equal(
    usedMicros,
    entries.reduce((sum, entry) => sum + entry.costMicros, 0),
    'the budget was charged exactly once for each',
  )
}

t.test('a kill -9 right after a batch of answers keeps every answered charge, once', async (t) => {
  const dataDir = freshDataDir(t)
  const made = await seedProject(dataDir, { budgetDollars: 1000 })
  const answered = await batchUntilKilled(t, dataDir, made.keys[0]!.key, {})
  const restarted = await startTestGateway(t, { dataDir })
  await restarted.gateway.close()
  const after = await inspect(dataDir, (view) => ({ entries: view.entries, row: view.budget(made.projectId, view.entries[0]?.month ?? '') }))
  checkLedger(t, answered, after.entries, after.row.usedMicros)
})

t.test('on PostgreSQL too: the restart commits the journaled charges of the batch, once', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  const databaseUrl = await server.freshDatabase(t)
  const dataDir = freshDataDir(t)
  const made = await seedProject(dataDir, { budgetDollars: 1000 }, undefined, { databaseUrl })
  const answered = await batchUntilKilled(t, dataDir, made.keys[0]!.key, { DATABASE_URL: databaseUrl })
  const restarted = await startTestGateway(t, { dataDir, env: { DATABASE_URL: databaseUrl } })
  await restarted.gateway.close()
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  t.teardown(() => client.end())
  const entries = (
    await client.query<{ id: string; cost: string }>(`SELECT id, entry->>'costMicros' AS cost FROM metering_ledger WHERE project_id = $1`, [made.projectId])
  ).rows
  const used = await client.query<{ used: string }>('SELECT coalesce(sum(used_micros), 0)::bigint AS used FROM metering_budgets WHERE project_id = $1', [
    made.projectId,
  ])
  checkLedger(
    t,
    answered,
    entries.map((row) => ({ id: row.id, costMicros: Number(row.cost) })),
    Number(used.rows[0]!.used),
  )
})
