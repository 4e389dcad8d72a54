// Three gateways on the shared database under governed load, one killed with SIGKILL: a survivor
// gives back the budget the dead one held once its lease has run out (no restart of the dead one
// needed); every answer a client received is in the ledger once the dead one has restarted on its
// data directory (its last answers were journaled there and not yet committed), with the budget's
// used figure equal to the ledger's sum; and the project's audit chain, which all three extended,
// verifies, the restarted one extending it further.
import { writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import pg from 'pg'
import { request } from 'undici'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { spawnGateway } from '../../helpers/spawn-gateway.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { until } from '../../helpers/until.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))
const LEASE_MS = 1_000
const governorMetadata = { actionType: 'customer_support', senderId: 'agent-7' }

t.test(
  'after a SIGKILL under load every answered request is in the ledger once, a survivor releases the holds, and the audit chain verifies',
  { skip: POSTGRES_MISSING },
  async (t) => {
    const server = await startPostgres(t)
    const databaseUrl = await server.freshDatabase(t)
    const mock = await startMockUpstream({ latencyMs: 40 })
    t.teardown(() => mock.close())
    const seedDir = freshDataDir(t)
    const seeded = await seedProject(seedDir, { budgetDollars: 1000 }, undefined, { databaseUrl })
    const key = seeded.keys[0]!.key
    const plugins = { metering: { holdLeaseMs: LEASE_MS } }
    // Every gateway knows the project from the database.
    const doomedDir = freshDataDir(t)
    const configFile = join(doomedDir, 'config.json')
    writeFileSync(configFile, JSON.stringify({ plugins }))
    const env = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test', DATABASE_URL: databaseUrl }
    const serve = (dataDir: string) =>
      spawnGateway(t, [CLI, 'serve', '--data', dataDir], {
        ...process.env,
        ...env,
        TOLLGATE_SECRET: TEST_SECRET,
        PORT: '0',
        LOG_LEVEL: 'silent',
        TOLLGATE_CONFIG: configFile,
      })
    const doomed = await serve(doomedDir)
    const other = await serve(freshDataDir(t))
    const survivor = await startTestGateway(t, { dataDir: seedDir, env, overrides: { plugins } })
    const gateways = [doomed.url, other.url, survivor.url]

    const answered = new Set<string>()
    let stop = false
    const worker = async (url: string) => {
      while (!stop) {
        try {
          const res = await request(`${url}/api/ai/complete`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
            body: JSON.stringify({ messages: [{ role: 'user', content: 'count me once' }], governorMetadata }),
          })
          await res.body.text()
          if (res.statusCode === 200) answered.add(String(res.headers['x-request-id']))
        } catch {
          return
        }
      }
    }
    const load = Array.from({ length: 30 }, (_, i) => worker(gateways[i % gateways.length]!))
    const wait = () => new Promise((resolve) => setTimeout(resolve, 20))
    await until(() => answered.size >= 90, '90 answers', 60_000)
    // From here on the provider holds every call, so requests are surely in flight at the kill.
    mock.fail('slow-first-byte', 1000)
    const seen = mock.requests.length
    await until(() => mock.requests.length >= seen + 15, '15 requests held by the provider', 30_000)
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    t.teardown(() => client.end())
    const holds = async () => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM metering_holds')).rows[0]!.n
    // Each gateway carves its requests' holds from its lease on the month, a row of metering_holds.
    const held = await client.query<{ micros: string }>('SELECT coalesce(sum(micros), 0)::bigint AS micros FROM metering_holds')
    t.ok(Number(held.rows[0]!.micros) > 0 && (await holds()) >= 1, "requests in flight at the kill hold budget: their gateways' leases")
    doomed.child.kill('SIGKILL')
    await once(doomed.child, 'exit')
    stop = true
    await Promise.all(load)

    // The survivors sweep every third of a lease: the dead gateway's lease goes within about a lease,
    // and theirs go back once they are idle.
    const deadline = performance.now() + 10 * LEASE_MS
    while ((await holds()) > 0 && performance.now() < deadline) await wait()
    t.equal(await holds(), 0, "the survivors released the dead gateway's lease and gave theirs back")

    // An answer is journaled on its gateway's disk before it leaves and committed just after, so
    // the dead gateway's last answers reach the ledger when it restarts on its data directory.
    const ids = [...answered]
    const inLedger = async () => (await client.query<{ id: string }>('SELECT id FROM metering_ledger WHERE id = ANY($1)', [ids])).rows.length
    const restarted = await serve(doomedDir)
    await until(async () => (await inLedger()) === ids.length, `all ${ids.length} answered requests in the ledger after the restart`, 30_000)
    t.equal(await inLedger(), ids.length, `all ${ids.length} answered requests are in the ledger`)
    const row = await client.query<{ used: string; reserved: string; sum: string }>(
      `SELECT b.used_micros AS used, b.reserved_micros AS reserved,
       (SELECT sum((entry->>'costMicros')::bigint) FROM metering_ledger WHERE project_id = $1) AS sum
     FROM metering_budgets b WHERE b.project_id = $1`,
      [seeded.projectId],
    )
    t.equal(row.rows[0]!.reserved, '0', 'no budget is held')
    t.equal(row.rows[0]!.used, row.rows[0]!.sum, "the budget used is exactly the ledger's sum")

    const governed = async (url: string) =>
      (
        await request(`${url}/api/ai/complete`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json', 'cache-control': 'no-store' },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'after the crash' }], governorMetadata }),
        })
      ).statusCode
    t.equal(await governed(survivor.url), 200, 'a survivor extends the chain')
    t.equal(await governed(restarted.url), 200, 'the restarted gateway extends it too')
    const verified = await run(process.execPath, [CLI, 'audit', 'verify', '--project', seeded.projectId, '--data', freshDataDir(t)], {
      env: { ...process.env, DATABASE_URL: databaseUrl, TOLLGATE_SECRET: TEST_SECRET },
    })
    const records = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM governor_audit')).rows[0]!.n
    // One record per governed request, answered or cut by the kill, and the two after it.
    t.ok(records >= ids.length + 2, `${records} audit records for ${ids.length} answered requests`)
    t.match(verified.stdout, `audit chain of ${seeded.projectId} is intact (${records} records)`)
  },
)
