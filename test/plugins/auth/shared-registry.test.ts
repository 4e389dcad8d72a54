// Gateways with their own data directories on one PostgreSQL database: a key made anywhere (the
// CLI, a seed) is accepted by every gateway on its next request, a deactivated one is refused by
// all, and an unknown key is answered 503 while the database is away, never 401.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { generateKey } from '../../../plugins/auth/logic/key-format.ts'
import { call, hello } from '../../helpers/http.ts'
import { POSTGRES_MISSING, startPostgres } from '../../helpers/postgres-server.ts'
import { freshDataDir, seedProject, startTestGateway, TEST_SECRET } from '../../helpers/start-gateway.ts'
import { until } from '../../helpers/until.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../../cli/tollgate.ts', import.meta.url))

async function tollgate(t: Test, databaseUrl: string, ...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, [CLI, ...args, '--json', '--data', freshDataDir(t)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, TOLLGATE_SECRET: TEST_SECRET },
  })
  return JSON.parse(stdout)
}

/** Asks until the answer is `status`; the milliseconds it took. */
async function answeredWith(url: string, key: string, status: number): Promise<number> {
  const started = performance.now()
  await until(async () => (await call(`${url}/api/health`, { key })).status === status, `${status} from ${url}`, 5_000)
  return performance.now() - started
}

t.test('on PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)

  t.test('a key made by the CLI is accepted by both gateways at once; deactivated, it is refused by both', async (t) => {
    const databaseUrl = await server.freshDatabase(t)
    const env = { DATABASE_URL: databaseUrl }
    const [one, two] = await Promise.all([startTestGateway(t, { env }), startTestGateway(t, { env })])

    const project = await tollgate(t, databaseUrl, 'projects', 'create', '--name', 'acme', '--plan', 'pro', '--budget', '50')
    const created = await tollgate(t, databaseUrl, 'keys', 'create', '--project', project.id, '--type', 'sk', '--env', 'prod', '--name', 'ci')
    t.equal((await call(`${two!.url}/api/ai/complete`, { key: created.key, body: hello })).status, 200, 'the next request on one gateway')
    t.equal((await call(`${one!.url}/api/ai/complete`, { key: created.key, body: hello })).status, 200, 'and on the other')
    t.match(await tollgate(t, databaseUrl, 'keys', 'list', '--project', project.id), [{ id: created.id, status: 'active', lastUsed: /^20/ }])
    t.match(await tollgate(t, databaseUrl, 'governor', 'settings', '--project', project.id, '--strict', 'on'), {
      project: project.id,
      strictMode: true,
      version: 2,
    })

    await tollgate(t, databaseUrl, 'keys', 'deactivate', created.id)
    const refused = [await answeredWith(one!.url, created.key, 401), await answeredWith(two!.url, created.key, 401)]
    t.comment(`refused ${refused.map((ms) => `${ms.toFixed(1)} ms`).join(' and ')} after the CLI exited`)
    t.equal((await call(`${one!.url}/api/ai/complete`, { key: created.key, body: hello })).status, 401)
    t.equal((await call(`${two!.url}/api/ai/complete`, { key: created.key, body: hello })).status, 401)

    const seeded = await seedProject(one!.dataDir, {}, [{ type: 'sk', env: 'prod' }], { databaseUrl })
    t.equal((await call(`${two!.url}/api/ai/complete`, { key: seeded.keys[0]!.key, body: hello })).status, 200, 'a seeded key too')
  })

  t.test('gateways starting together on an empty database make one demo project between them', async (t) => {
    const databaseUrl = await server.freshDatabase(t)
    const plugins = { auth: { secret: TEST_SECRET, demoOnFirstStart: true } }
    const gateways = await Promise.all([1, 2, 3].map(() => startTestGateway(t, { env: { DATABASE_URL: databaseUrl }, overrides: { plugins } })))
    const notices = gateways.flatMap(({ gateway }) => gateway.notices)
    t.equal(notices.length, 1, 'one of them shows a demo key')
    const projects = await tollgate(t, databaseUrl, 'projects', 'list')
    t.same(
      projects.map((p: { name: string }) => p.name),
      ['Demo project'],
    )
    const key = /key: +(\S+)/.exec(notices[0]!)![1]!
    for (const { url } of gateways) t.equal((await call(`${url}/api/health`, { key })).status, 200)
  })

  t.test('PostgreSQL stopped: a key the gateway knows is still authenticated, an unknown one gets 503', async (t) => {
    const databaseUrl = await server.freshDatabase(t)
    const gateway = await startTestGateway(t, { env: { DATABASE_URL: databaseUrl } })
    const {
      keys: [known],
    } = await seedProject(gateway.dataDir, {}, [{ type: 'sk', env: 'prod' }], { databaseUrl })
    t.equal((await call(`${gateway.url}/api/health`, { key: known!.key })).status, 200)
    await server.stop()
    t.teardown(() => server.start())
    t.match(await call(`${gateway.url}/api/health`, { key: known!.key }), { status: 200, body: { authenticated: true } }, 'answered from memory')
    const unknown = await call(`${gateway.url}/api/health`, { key: generateKey('sk', 'prod') })
    t.equal(unknown.status, 503)
    t.match(unknown.body, { code: 'dependency_unavailable', dependency: 'postgres' })
    t.equal(unknown.headers['retry-after'], '1')
  })
})
