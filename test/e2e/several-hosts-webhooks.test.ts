// Three gateway processes, each with its own data directory, on one PostgreSQL, as three hosts
// behind a load balancer would run: a webhook registered through one is served by all three, and
// the events of every host are delivered to it once each, the three sharing the sending.
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import pino from 'pino'
import { openDatabase } from '../../proxy/stores/database.ts'
import { openSharedEvents } from '../../proxy/stores/events/postgres.ts'
import { call } from '../helpers/http.ts'
import { POSTGRES_MISSING, startPostgres } from '../helpers/postgres-server.ts'
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts'
import { freshDataDir, TEST_SECRET } from '../helpers/start-gateway.ts'
import { startReceiver } from '../plugins/webhooks/fixtures/receiver.ts'
import { until } from '../helpers/until.ts'

const run = promisify(execFile)
const CLI = fileURLToPath(new URL('../../cli/tollgate.ts', import.meta.url))
const SECRET = 'whsec-several-hosts-0123456789'
const EVENTS = 200

t.test('three gateway processes on one PostgreSQL share the webhooks and their deliveries', { skip: POSTGRES_MISSING }, async (t) => {
  const postgres = await startPostgres(t)
  const databaseUrl = await postgres.freshDatabase(t)
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TOLLGATE_SECRET: TEST_SECRET,
    PORT: '0',
    LOG_LEVEL: 'silent',
    // The receivers listen on 127.0.0.1 over plain http.
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1',
    WEBHOOKS_ALLOW_HTTP: '1',
  }
  const hosts: SpawnedGateway[] = await Promise.all([1, 2, 3].map(() => spawnGateway(t, [CLI, 'serve', '--data', freshDataDir(t)], env)))

  async function tollgate(t: Test, ...args: string[]): Promise<any> {
    const { stdout } = await run(process.execPath, [CLI, ...args, '--json', '--data', freshDataDir(t)], { env })
    return JSON.parse(stdout)
  }
  const project = await tollgate(t, 'projects', 'create', '--name', 'webhook team', '--plan', 'enterprise', '--budget', '100')
  const { key } = await tollgate(t, 'keys', 'create', '--project', project.id, '--type', 'sk', '--env', 'prod', '--name', 'service')

  const sentBy = () =>
    Promise.all(
      hosts.map(async ({ url }) =>
        Number(/^tollgate_webhook_deliveries_total\{outcome="succeeded"\} (\d+)$/m.exec((await call(`${url}/metrics`)).body)?.[1] ?? 0),
      ),
    )

  t.test('a webhook registered through one host is listed, changed and tested through the others', async (t) => {
    const receiver = await startReceiver(t)
    const registered = await call(`${hosts[0]!.url}/api/webhooks`, { key, body: { url: receiver.url, events: ['case.created'], secret: SECRET } })
    t.equal(registered.status, 201)
    const id = registered.body.id as string
    t.match((await call(`${hosts[1]!.url}/api/webhooks`, { key })).body.webhooks, [{ id, events: ['case.created'], active: true }])
    t.equal((await call(`${hosts[2]!.url}/api/webhooks/${id}`, { method: 'PATCH', key, body: { events: ['case.created', 'case.updated'] } })).status, 200)
    t.match((await call(`${hosts[0]!.url}/api/webhooks`, { key })).body.webhooks, [{ id, events: ['case.created', 'case.updated'] }])
    for (const host of hosts) {
      const tested = await call(`${host.url}/api/webhooks/test`, { key, body: { webhook_id: id, event_type: 'case.created' } })
      t.match(tested.body, { success: true, delivery: { status: 'succeeded', test: true } }, 'the secret sealed on one host signs on another')
    }
    t.equal((await call(`${hosts[1]!.url}/api/webhooks/${id}/deliveries`, { key })).body.deliveries.length, 3, 'every host lists the deliveries of all three')
    t.equal((await call(`${hosts[2]!.url}/api/webhooks/${id}`, { method: 'DELETE', key })).status, 200)
    t.equal((await call(`${hosts[0]!.url}/api/webhooks/${id}/deliveries`, { key })).status, 404)
  })

  t.test(`${EVENTS} events from every host are each delivered once, by one of the three`, async (t) => {
    const receiver = await startReceiver(t)
    const registered = await call(`${hosts[0]!.url}/api/webhooks`, { key, body: { url: receiver.url, events: ['*'], secret: SECRET } })
    t.equal(registered.status, 201)
    const before = await sentBy()

    // Three producers, one per host, each emitting as a plugin of that host does: in its own
    // transaction on the shared outbox, in batches as requests would.
    const log = pino({ level: 'silent' })
    const clock = { now: () => Date.now() }
    const emitted = (
      await Promise.all(
        [0, 1, 2].map(async (host) => {
          const database = openDatabase(databaseUrl, log, { maxConnections: 2 })
          const core = database.forPlugin('core')
          const outbox = await openSharedEvents(core, clock, log)
          const ids: string[] = []
          try {
            for (let n = host * 5; n < EVENTS; n += 3 * 5) {
              await core.transaction(async (sql) => {
                for (let i = n; i < Math.min(n + 5, EVENTS); i++)
                  ids.push((await outbox.emit(sql, 'case.updated', project.id, { case_id: `case_${i}`, host })).id)
              })
            }
          } finally {
            await outbox.close()
            await database.close()
          }
          return ids
        }),
      )
    ).flat()
    t.equal(emitted.length, EVENTS)

    await until(() => receiver.received.length >= EVENTS, `${EVENTS} deliveries`, 30_000)
    // A host counts a send once it has read the answer and settled the delivery, a moment after
    // the receiver has the request.
    let perHost = await sentBy()
    const sentHere = () => perHost.map((n, i) => n - before[i]!)
    await until(
      async () => {
        perHost = await sentBy()
        return sentHere().reduce((a, b) => a + b) >= EVENTS
      },
      'the hosts to count their sends',
      10_000,
    )
    t.comment(`sent by each host: ${sentHere().join(', ')}`)

    const ids = receiver.received.map((delivery) => delivery.body.id as string)
    t.equal(ids.length, EVENTS, 'no event was sent twice')
    t.same([...new Set(ids)].sort(), [...emitted].sort(), 'every event arrived')
    t.equal(
      sentHere().reduce((a, b) => a + b),
      EVENTS,
      "the hosts' sends add up to one per event",
    )
    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    t.teardown(() => db.end())
    const stored = await db.query<{ deliveries: number; once: boolean; events_left: number }>(
      `SELECT count(*)::int AS deliveries, bool_and(record->>'status' = 'succeeded' AND (record->>'attempts')::int = 1) AS once,
              (SELECT count(*)::int FROM core_events) AS events_left
       FROM webhooks_deliveries WHERE webhook_id = $1`,
      [registered.body.id],
    )
    t.same(stored.rows[0], { deliveries: EVENTS, once: true, events_left: 0 }, 'one delivery per event, each sent once and succeeded; the outbox is empty')
  })
})
