// Streams cut by a SIGKILL of one gateway on the shared database, before their first periodic
// checkpoint, are never released as free: a surviving gateway charges each at least its prompt,
// once, and never above its hold, once the dead one's lease has run out.
import t from 'tap'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { LedgerEntry } from '../../../plugins/metering/store/records.ts'
import { checkCutCharges, streamsToCut } from '../../helpers/cut-streams.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { until } from '../../helpers/until.ts'

const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))
const LEASE_MS = 1_000
// No periodic checkpoint can come before the kill: every stream is far shorter than the interval.
const CHECKPOINT_INTERVAL_MS = 60_000

t.test(
  'streams cut by a SIGKILL before any periodic checkpoint are charged at least their prompt by a surviving gateway',
  { skip: POSTGRES_MISSING },
  async (t) => {
    const server = await startPostgres(t)
    const databaseUrl = await server.freshDatabase(t)
    const mock = await startMockUpstream({ slowStreamMs: 20 })
    t.teardown(() => mock.close())
    const seeded = await seedProject(freshDataDir(t), { budgetDollars: 1000 }, undefined, { databaseUrl })
    const configFile = join(freshDataDir(t), 'config.json')
    writeFileSync(configFile, JSON.stringify({ plugins: { metering: { holdLeaseMs: LEASE_MS, checkpointIntervalMs: CHECKPOINT_INTERVAL_MS } } }))
    const serve = () =>
      spawnGateway(t, [CLI, 'serve', '--data', freshDataDir(t)], {
        ...process.env,
        TOLLGATE_SECRET: TEST_SECRET,
        PORT: '0',
        LOG_LEVEL: 'silent',
        TOLLGATE_CONFIG: configFile,
        OPENAI_BASE_URL: mock.url,
        OPENAI_API_KEY: 'test',
        DATABASE_URL: databaseUrl,
      })
    const doomed = await serve()
    await serve()
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    t.teardown(() => client.end())
    const count = async (table: string, ids: readonly string[]) =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE request_id = ANY($1)`, [ids])).rows[0]!.n

    const streams = await streamsToCut(t, mock, doomed.url, seeded.keys[0]!.key)
    const ids = streams.map((stream) => stream.id)
    // The first checkpoints are committed in turns after admission: a busy machine is given a moment
    // for that commit (see docs/budgets-and-metering.md, Budgets on PostgreSQL), and the kill comes after it regardless.
    await until(async () => (await count('metering_checkpoints', ids)) === ids.length, 'a first checkpoint of every stream', 3_000).catch(() => undefined)
    doomed.child.kill('SIGKILL')
    await once(doomed.child, 'exit')
    // The streams' holds were carved from the dead gateway's lease on the month: one row it owned.
    const leases = async () => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM metering_holds')).rows[0]!.n
    t.equal(await leases(), 1, "the crash left the lease the streams' holds came from")

    // The survivor sweeps every third of a lease: what the dead gateway left goes within about a lease.
    await until(
      async () => (await leases()) + (await count('metering_checkpoints', ids)) === 0,
      "the survivor to settle the dead gateway's streams",
      10 * LEASE_MS,
    )
    const found = await client.query<{ id: string; entry: LedgerEntry }>('SELECT id, entry FROM metering_ledger WHERE id = ANY($1)', [ids])
    const entries = new Map(found.rows.map((row) => [row.id, row.entry]))
    checkCutCharges(
      t,
      streams,
      (id) => entries.get(id),
      () => undefined,
    )
    const row = await client.query<{ used: string; reserved: string; sum: string | null }>(
      `SELECT b.used_micros AS used, b.reserved_micros AS reserved,
       (SELECT sum((entry->>'costMicros')::bigint) FROM metering_ledger WHERE project_id = $1) AS sum
     FROM metering_budgets b WHERE b.project_id = $1`,
      [seeded.projectId],
    )
    t.equal(row.rows[0]!.reserved, '0', 'no budget is held')
    t.equal(row.rows[0]!.used, row.rows[0]!.sum ?? '0', "the budget is charged exactly the ledger's sum: nothing twice")
  },
)
