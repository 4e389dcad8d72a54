// The shared stores' connections: migrations once across gateways starting together, queries that
// fail fast while the server is away, and /readyz naming the dependency that is down: not ready
// without PostgreSQL, ready but degraded without Redis.
import t from 'tap'
import pino from 'pino'
import { openDatabase } from '../../proxy/stores/database.ts'
import { openRedis } from '../../proxy/stores/redis.ts'
import { DependencyUnavailableError } from '../../proxy/pipeline/errors.ts'
import { ConfigError } from '../../proxy/config.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { REDIS_MISSING, startRedis } from '../helpers/redis-server.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'
import { until } from '../helpers/until.ts'
import { call } from '../helpers/http.ts'
import { captureLog } from '../helpers/log-capture.ts'

const log = pino({ level: 'silent' })

t.test('PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)

  t.test('migrations run once, in order, when several gateways start at once', async (t) => {
    const url = await server.freshDatabase(t)
    const databases = Array.from({ length: 4 }, () => openDatabase(url, log))
    t.teardown(() => Promise.all(databases.map((d) => d.close())))
    const migrations = [
      { version: 2, sql: 'ALTER TABLE things ADD COLUMN size integer NOT NULL DEFAULT 0' },
      { version: 1, sql: 'CREATE TABLE things (id text PRIMARY KEY)' },
    ]
    await Promise.all(databases.map((d) => d.forPlugin('demo').migrate(migrations)))
    const plugin = databases[0]!.forPlugin('demo')
    const applied = await plugin.query<{ version: number }>(`SELECT version FROM tollgate_migrations WHERE plugin = 'demo' ORDER BY version`)
    t.same(
      applied.rows.map((r) => r.version),
      [1, 2],
    )
    await plugin.query(`INSERT INTO things (id, size) VALUES ('a', 3)`)
    await databases[1]!.forPlugin('demo').migrate([...migrations, { version: 3, sql: `UPDATE things SET size = size + 1` }])
    t.same((await plugin.query('SELECT size FROM things')).rows, [{ size: 4 }], 'a later version runs once on the rows already there')
  })

  t.test('a transaction commits together or not at all', async (t) => {
    const url = await server.freshDatabase(t)
    const database = openDatabase(url, log)
    t.teardown(() => database.close())
    const plugin = database.forPlugin('demo')
    await plugin.migrate([{ version: 1, sql: 'CREATE TABLE things (id text PRIMARY KEY)' }])
    await t.rejects(
      plugin.transaction(async (sql) => {
        await sql.query(`INSERT INTO things VALUES ('a')`)
        await sql.query(`INSERT INTO things VALUES ('a')`)
      }),
    )
    t.same((await plugin.query('SELECT count(*)::int AS n FROM things')).rows, [{ n: 0 }])
  })

  t.test('a server that is away fails a query within seconds, with a 503 error, and is found again', async (t) => {
    const url = await server.freshDatabase(t)
    const database = openDatabase(url, log)
    t.teardown(() => database.close())
    const plugin = database.forPlugin('demo')
    await plugin.query('SELECT 1')
    await server.stop()
    const started = performance.now()
    const err = await plugin.query('SELECT 1').catch((e: unknown) => e)
    t.ok(err instanceof DependencyUnavailableError, 'DependencyUnavailableError')
    t.equal((err as DependencyUnavailableError).status, 503)
    t.ok(performance.now() - started < 5_000, 'within the connect timeout')
    t.equal(database.isUp(), false)
    await server.start()
    await plugin.query('SELECT 1')
    t.equal(database.isUp(), true)
  })

  t.test('PostgreSQL away: /readyz answers 503 naming it, and 200 again when it is back', async (t) => {
    const { url } = await startTestGateway(t, { env: { DATABASE_URL: await server.freshDatabase(t) } })
    const postgresUp = async () => /^tollgate_dependency_up\{dependency="postgres"\} (\d)$/m.exec((await call(`${url}/metrics`)).body)?.[1]
    t.match(await call(`${url}/readyz`), { status: 200, body: { status: 'ready', dependencies: { postgres: 'up' } } })
    t.equal(await postgresUp(), '1')
    await server.stop()
    let answer = await call(`${url}/readyz`)
    await until(async () => (answer = await call(`${url}/readyz`)).status === 503, 'the gateway to find PostgreSQL away', 30_000)
    t.match(answer.body, { status: 'not ready', notReady: ['postgres'], dependencies: { postgres: 'down' } })
    t.equal(await postgresUp(), '0')
    await server.start()
    await until(async () => (await call(`${url}/readyz`)).status === 200, 'ready again', 30_000)
    t.equal(await postgresUp(), '1')
  })
})

t.test('a PostgreSQL that cannot be reached at start stops the gateway with one line naming DATABASE_URL, never its password', async (t) => {
  const err = await startTestGateway(t, { env: { DATABASE_URL: 'postgres://tollgate:hunter2-password@127.0.0.1:1/tollgate' } }).catch((e: unknown) => e)
  t.ok(err instanceof ConfigError, 'a configuration error (exit code 2)')
  t.match((err as Error).message, /^PostgreSQL cannot be reached at start \(DATABASE_URL\)/)
  t.notMatch((err as Error).message, /hunter2/)
})

t.test('Redis', { skip: REDIS_MISSING }, async (t) => {
  t.test('a command while the server is away fails at once, and the connection comes back by itself', async (t) => {
    const server = await startRedis(t)
    const redis = openRedis(server.url, log)
    t.teardown(() => redis.close())
    await redis.connected()
    await redis.run((c) => c.ping())
    await server.stop()
    const err = await redis.run((c) => c.get('x')).catch((e: unknown) => e)
    t.ok(err instanceof DependencyUnavailableError, 'DependencyUnavailableError')
    await server.start()
    await until(() => redis.isUp(), 'the Redis client to reconnect')
    t.equal(await redis.run((c) => c.set('x', '1')), 'OK')
  })

  t.test('Redis away: /readyz stays 200 naming redis as degraded, unlimited keys are served and limited ones get 503; back: ready again', async (t) => {
    const server = await startRedis(t)
    const log = captureLog()
    const dataDir = freshDataDir(t)
    const unlimited = (await seedProject(dataDir, { plan: 'enterprise' })).keys[0]!.key
    const limited = (await seedProject(dataDir, { plan: 'pro' })).keys[0]!.key
    const { url } = await startTestGateway(t, { dataDir, env: { REDIS_URL: server.url }, overrides: { logLevel: 'warn' }, logDestination: log.destination })
    const complete = (key: string, n: number) => call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content: `question ${n}` }] } })
    const redisUp = async () => /^tollgate_dependency_up\{dependency="redis"\} (\d)$/m.exec((await call(`${url}/metrics`)).body)?.[1]
    t.match(await call(`${url}/readyz`), { status: 200, body: { status: 'ready', dependencies: { redis: 'up' } } })
    t.equal(await redisUp(), '1')

    await server.stop()
    const degraded = await call(`${url}/readyz`)
    t.match(
      degraded,
      { status: 200, body: { status: 'degraded', degraded: ['redis'], dependencies: { redis: 'down' } } },
      'ready, the dependency it degrades around named',
    )
    t.notOk('notReady' in degraded.body)
    t.equal(await redisUp(), '0', 'tollgate_dependency_up says Redis is down')
    t.equal((await complete(unlimited, 1)).status, 200, 'an unlimited key is served')
    t.match(
      await complete(limited, 2),
      { status: 503, headers: { 'retry-after': '1' }, body: { code: 'dependency_unavailable', dependency: 'redis' } },
      'a limited key is refused: its limit cannot be checked',
    )
    // The warning comes with the first reconnection attempt that fails.
    const redisWarning = () => log.lines().find((line) => line.dependency === 'redis' && line.level === 40)
    await until(() => redisWarning() !== undefined, 'the warning')
    const warning = redisWarning()
    t.match(warning, { msg: /Redis is unreachable/, err: { type: String, message: String } }, 'the warning carries the error as a logged error')
    t.notMatch(warning?.err.message, /\[object Object\]/)

    await server.start()
    let ready = await call(`${url}/readyz`)
    await until(async () => (ready = await call(`${url}/readyz`)).body.status === 'ready', 'ready again')
    t.match(ready, { status: 200, body: { dependencies: { redis: 'up' } } })
    t.notOk('degraded' in ready.body)
    t.equal(await redisUp(), '1')
    t.equal((await complete(limited, 3)).status, 200, 'the limited key is served again, without a restart')
  })
})
