// The metering store's promises, on LMDB and on PostgreSQL alike: holds within the limit, each
// request charged once, the month's and the day's figures, usage events once. Then what only a
// shared store must keep: several gateways' reserves never overspend, a gateway that vanished
// leaves no hold behind its lease, and a database that is away fails fast.
import t, { type Test } from 'tap'
import pino from 'pino'
import { openStore } from '../../../../proxy/stores/store.ts'
import type { GatewayEvent } from '../../../../proxy/stores/events/index.ts'
import { createOutbox } from '../../../../proxy/stores/events/lmdb.ts'
import { openSharedEvents } from '../../../../proxy/stores/events/postgres.ts'
import { openDatabase } from '../../../../proxy/stores/database.ts'
import { DependencyUnavailableError } from '../../../../proxy/pipeline/errors.ts'
import type { Hold } from '../../../../plugins/metering/store/records.ts'
import type { MeteringStore } from '../../../../plugins/metering/store/index.ts'
import { lmdbMeteringStore } from '../../../../plugins/metering/store/lmdb/index.ts'
import { postgresMeteringStore } from '../../../../plugins/metering/store/postgres/index.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres, type PostgresServer } from '../../../helpers/postgres-server.ts'
import { manualClock } from '../../../helpers/manual-clock.ts'
import { entry, hold } from './fixtures.ts'

const log = pino({ level: 'silent' })
const LEASE_MS = 30_000

/** Settling a request that reserved `held`; a request that reserved nothing settles with `unheld`. */
const settled = (held: Hold) => ({ hold: held, checkpointed: false })
const unheld = { hold: undefined, checkpointed: false }
const november = { start: '2026-11-01', end: '2026-11-30' }

type Kind = 'lmdb' | 'postgres'

/** Opens stores of one kind on one shared place (a data directory, or a database). */
async function storesOn(t: Test, kind: Kind, server: PostgresServer | undefined) {
  const clock = manualClock(Date.UTC(2026, 10, 21))
  if (kind === 'lmdb') {
    // One process on LMDB: its every "gateway" is the same store, and so is its event outbox.
    const store = openStore(freshDataDir(t))
    const events = createOutbox(store.root, clock)
    const metering = lmdbMeteringStore(store.forPlugin('metering'), { shared: true, track: () => undefined, events })
    t.teardown(async () => {
      await metering.close()
      await store.close()
    })
    const emitted = async () => {
      await store.root.committed
      return events.pending(10)
    }
    return { clock, emitted, open: async () => metering }
  }
  const url = await server!.freshDatabase(t)
  const core = openDatabase(url, log, { maxConnections: 2 })
  const events = await openSharedEvents(core.forPlugin('core'), clock, log)
  t.teardown(async () => {
    await events.close()
    await core.close()
  })
  /** The events committed so far, oldest first, left in the outbox. */
  const emitted = async () =>
    (await core.forPlugin('core').query<{ event: GatewayEvent }>('SELECT event FROM core_events ORDER BY id')).rows.map((r) => r.event)
  let owners = 0
  return {
    clock,
    emitted,
    tables: core.forPlugin('metering'),
    async open(): Promise<MeteringStore> {
      // Few connections each: the test's gateways start cold on a machine of two cores.
      const database = openDatabase(url, log, { maxConnections: 5 })
      t.teardown(() => database.close())
      const metering = await postgresMeteringStore(database.forPlugin('metering'), {
        clock,
        owner: `gateway-${++owners}`,
        leaseMs: LEASE_MS,
        events,
        journalDirectory: freshDataDir(t),
        isLive: () => true,
      })
      t.teardown(() => metering.close())
      return metering
    },
  }
}

async function suite(t: Test, kind: Kind, server?: PostgresServer) {
  t.test('a hold is admitted only while it fits, and settles to the real cost', async (t) => {
    const ledger = await (await storesOn(t, kind, server)).open()
    const r1 = hold('r1', 8_000)
    t.same(await ledger.reserve(r1, 10_000), { ok: true })
    t.same(await ledger.reserve(hold('r2', 3_000), 10_000), { ok: false, availableMicros: 2_000 })
    await ledger.settle(entry('r1', 1_000), 10_000, settled(r1)).committed
    t.match(await ledger.budget('p', '2026-11'), { usedMicros: 1_000, reservedMicros: 0 })
    t.same(await ledger.reserve(hold('r2', 3_000), 10_000), { ok: true })
    t.match(await ledger.budget('p', '2026-11'), { usedMicros: 1_000, reservedMicros: 3_000 })
  })

  t.test('a request settled twice, or replayed by another gateway, is counted once', async (t) => {
    const stores = await storesOn(t, kind, server)
    const [a, b] = [await stores.open(), await stores.open()]
    const r1 = hold('r1', 2_000)
    await a.reserve(r1, 10_000)
    const rows = await Promise.all([
      a.settle(entry('r1', 500), 10_000, settled(r1)).committed,
      a.settle(entry('r1', 500), 10_000, unheld).committed,
      b.settle(entry('r1', 500), 10_000, unheld).committed,
    ])
    t.same(
      rows.map((row) => row.usedMicros),
      [500, 500, 500],
    )
    t.match(await b.budget('p', '2026-11'), { usedMicros: 500, reservedMicros: 0 })
    t.match(await b.entry('r1'), { costMicros: 500, outcome: 'ok' })
    t.same(
      await a.dayStats('p', november),
      new Map([['2026-11-21', { hits: 0, misses: 1, models: { 'gpt-4o': { requests: 1, tokens: 20, costMicros: 500 } } }]]),
    )
  })

  t.test("the month's figures and the day's add up across requests, months apart", async (t) => {
    const ledger = await (await storesOn(t, kind, server)).open()
    const october = { ...hold('old', 900), month: '2026-10' }
    await ledger.reserve(october, 10_000)
    await Promise.all([
      ledger.settle(entry('a', 4_000), 10_000, unheld).committed,
      ledger.settle({ ...entry('hit', 0), cacheHit: true, outcome: 'cache_hit' }, 10_000, unheld).committed,
      ledger.settle({ ...entry('over', 1_000), overageMicros: 250, model: 'gpt-4o-mini' }, 10_000, unheld).committed,
      ledger.settle({ ...entry('free', 0), unpriced: 'no_usage', passthrough: true }, 10_000, unheld).committed,
      // Began in October, answered in November: October's hold goes, November is charged.
      ledger.settle(entry('old', 300), 10_000, settled(october)).committed,
    ])
    t.match(await ledger.budget('p', '2026-11'), { usedMicros: 5_300, reservedMicros: 0, overageMicros: 250 })
    t.match(await ledger.budget('p', '2026-10'), { usedMicros: 0, reservedMicros: 0 })
    t.same(
      await ledger.dayStats('p', november),
      new Map([
        [
          '2026-11-21',
          {
            hits: 1,
            misses: 3,
            models: {
              'gpt-4o': { requests: 4, tokens: 80, costMicros: 4_300, unpriced: 1 },
              'gpt-4o-mini': { requests: 1, tokens: 20, costMicros: 1_000 },
            },
          },
        ],
      ]),
    )
    t.same(await ledger.dayStats('p', { start: '2026-12-01', end: '2026-12-31' }), new Map())
  })

  t.test('100 requests of one project at once on one gateway: each held, charged and counted once, each threshold announced once', async (t) => {
    const stores = await storesOn(t, kind, server)
    const ledger = await stores.open()
    const holds = Array.from({ length: 100 }, (_, i) => hold(`c${i}`, 100))
    const held = await Promise.all(holds.map((each) => ledger.reserve(each, 10_000)))
    t.ok(
      held.every((h) => h.ok),
      'every hold fits',
    )
    await Promise.all(holds.map((each) => ledger.settle(entry(each.requestId, 100), 10_000, settled(each)).committed))
    t.match(await ledger.budget('p', '2026-11'), { usedMicros: 10_000, reservedMicros: 0, notified: [80, 90] })
    t.match(await ledger.dayStats('p', november), new Map([['2026-11-21', { misses: 100, models: { 'gpt-4o': { requests: 100, costMicros: 10_000 } } }]]))
    t.same(
      (await stores.emitted()).map((e) => e.data.threshold_percent),
      [80, 90],
    )
  })

  t.test('usage events fire once each: 80% and 90% thresholds, then the limit on the first refusal', async (t) => {
    const stores = await storesOn(t, kind, server)
    const ledger = await stores.open()
    await ledger.settle(entry('a', 7_000), 10_000, unheld).committed
    t.same(await stores.emitted(), [], 'below 80%')
    await ledger.settle(entry('b', 1_500), 10_000, unheld).committed
    await ledger.settle(entry('c', 100), 10_000, unheld).committed
    const row = await ledger.settle(entry('d', 600), 10_000, unheld).committed
    t.same(row.notified, [80, 90])
    t.match(await stores.emitted(), [
      { type: 'usage.threshold_reached', project_id: 'p', data: { threshold_percent: 80, budget_limit: 0.01, budget_used: 0.0085, period: '2026-11' } },
      { type: 'usage.threshold_reached', project_id: 'p', data: { threshold_percent: 90, budget_used: 0.0092 } },
    ])
    await ledger.reserve(hold('f', 5_000), 10_000)
    await ledger.reserve(hold('g', 5_000), 10_000)
    const all = await stores.emitted()
    t.equal(all.length, 3)
    t.match(all[2], { type: 'usage.limit_exceeded', data: { budget_limit: 0.01, requested_cost: 0.005 } })
  })

  t.test("a stream's checkpoint goes with its settlement, and one that arrives after it is dropped", async (t) => {
    const ledger = await (await storesOn(t, kind, server)).open()
    await ledger.settle(entry('done', 400), 10_000, { hold: undefined, checkpointed: true }).committed
    await ledger.checkpoint([{ entry: { ...entry('done', 100), outcome: 'recovered' }, owner: 'gone', limitMicros: 10_000 }])
    await ledger.checkpoint([{ entry: { ...entry('running', 100), outcome: 'recovered' }, owner: 'gone', limitMicros: 10_000 }])
    await ledger.settle(entry('running', 250), 10_000, { hold: undefined, checkpointed: true }).committed
    t.match(await ledger.recover(), { recovered: 0 }, 'nothing is left to settle from a checkpoint')
    t.match(await ledger.budget('p', '2026-11'), { usedMicros: 650 })
  })
}

t.test('LMDB', (t) => suite(t, 'lmdb'))

t.test('PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  await suite(t, 'postgres', server)

  t.test('200 concurrent reserves from four gateways against a budget that fits 10: exactly 10 are held, and used stays within the limit', async (t) => {
    const stores = await storesOn(t, 'postgres', server)
    const gateways = await Promise.all([1, 2, 3, 4].map(() => stores.open()))
    const holds = Array.from({ length: 200 }, (_, i) => hold(`r${i}`, 1_000))
    const results = await Promise.all(holds.map((each, i) => gateways[i % 4]!.reserve(each, 10_000)))
    const admitted = results.flatMap((result, i) => (result.ok ? [i] : []))
    t.equal(admitted.length, 10)
    t.match(await gateways[0]!.budget('p', '2026-11'), { usedMicros: 0, reservedMicros: 10_000 })
    await Promise.all(admitted.map((i) => gateways[i % 4]!.settle(entry(`r${i}`, 900), 10_000, settled(holds[i]!)).committed))
    const row = await gateways[3]!.budget('p', '2026-11')
    t.same(row, { usedMicros: 9_000, reservedMicros: 0, notified: [100, 80, 90] }, 'the limit was noted at the first refusal')
    t.ok(row.usedMicros <= 10_000)
  })

  t.test('a gateway that vanished leaves its holds until its lease runs out; then any other gives them back and settles its streams', async (t) => {
    const stores = await storesOn(t, 'postgres', server)
    const vanished = await stores.open()
    const survivor = await stores.open()
    await vanished.reserve(hold('cut', 900), 10_000)
    await vanished.reserve(hold('plain', 2_000), 10_000)
    await vanished.checkpoint([
      { entry: { ...entry('cut', 300), outcome: 'recovered' }, owner: 'ignored: the store names its own gateway', limitMicros: 10_000 },
    ])
    await survivor.reserve(hold('mine', 500), 10_000)
    stores.clock.advance(LEASE_MS - 1)
    await survivor.recover()
    t.match(await survivor.budget('p', '2026-11'), { usedMicros: 0, reservedMicros: 3_400 }, 'within the lease, nothing is taken')
    stores.clock.advance(2)
    t.same(await survivor.recover(), { released: 1, recovered: 1, replayed: 0, unreadable: 0 })
    t.match(await survivor.entry('cut'), { outcome: 'recovered', costMicros: 300 })
    t.match(await survivor.budget('p', '2026-11'), { usedMicros: 300, reservedMicros: 500 }, "the survivor's own hold stays: it renewed its lease")
    t.same(await survivor.recover(), { released: 0, recovered: 0, replayed: 0, unreadable: 0 }, 'nothing is given back twice')
  })

  t.test("a vanished gateway's streams are charged at least their first checkpoint, which never replaces a later one", async (t) => {
    const stores = await storesOn(t, 'postgres', server)
    const vanished = await stores.open()
    const survivor = await stores.open()
    const first = (id: string) => ({ entry: { ...entry(id, 30), completionTokens: 0, outcome: 'recovered' }, owner: 'ignored', limitMicros: 10_000 })
    await vanished.reserve(hold('short', 900), 10_000)
    await vanished.reserve(hold('long', 900), 10_000)
    await vanished.checkpoint([{ ...first('long'), entry: { ...first('long').entry, costMicros: 300 } }])
    await vanished.startStreams([first('short'), first('long')])
    stores.clock.advance(LEASE_MS + 1)
    t.same(
      await survivor.recover(),
      { released: 1, recovered: 2, replayed: 0, unreadable: 0 },
      'the streams settled, the lease they were carved from given back',
    )
    t.match(await survivor.entry('short'), { outcome: 'recovered', costMicros: 30 }, 'its prompt')
    t.match(await survivor.entry('long'), { outcome: 'recovered', costMicros: 300 }, 'its later checkpoint')
    t.match(await survivor.budget('p', '2026-11'), { usedMicros: 330, reservedMicros: 0 })
  })

  t.test("a checkpoint whose insert raced its stream's settlement is dropped by the next sweep, charging nothing", async (t) => {
    const stores = await storesOn(t, 'postgres', server)
    const tables = stores.tables!
    const ledger = await stores.open()
    await ledger.settle(entry('raced', 400), 10_000, unheld).committed
    await tables.query(`INSERT INTO metering_checkpoints (request_id, owner, limit_micros, entry) VALUES ('raced', 'gateway-1', 10000, $1)`, [
      JSON.stringify({ ...entry('raced', 100), outcome: 'recovered' }),
    ])
    t.match(await ledger.recover(), { recovered: 0 })
    t.equal((await tables.query<{ n: number }>('SELECT count(*)::int AS n FROM metering_checkpoints')).rows[0]!.n, 0)
    t.match(await ledger.budget('p', '2026-11'), { usedMicros: 400 })
  })

  t.test('a gateway carves its holds from one budget lease; once its owner lease lapsed it drops its leases before it holds again', async (t) => {
    const stores = await storesOn(t, 'postgres', server)
    const gateway = await stores.open()
    const limit = 1_000_000_000
    const holds = Array.from({ length: 50 }, (_, i) => hold(`h${i}`, 1_000))
    for (const each of holds) t.same(await gateway.reserve(each, limit), { ok: true })
    t.match(await gateway.budget('p', '2026-11'), { reservedMicros: 257_000 }, 'one lease: the first hold and 256 more')
    stores.clock.advance(LEASE_MS + 1)
    t.same(await gateway.reserve(hold('after', 1_000), limit), { ok: true })
    t.match(await gateway.budget('p', '2026-11'), { reservedMicros: 257_000 }, 'the lapsed lease dropped, a new one grown')
    await gateway.settle(entry('h0', 500), limit, settled(holds[0]!)).committed
    t.match(await gateway.budget('p', '2026-11'), { usedMicros: 500, reservedMicros: 257_000 }, 'a hold of the lapsed lease shrinks nothing of the new one')
  })

  t.test('a gateway that missed its renewals renews its lease before it holds again, so its new hold is not swept', async (t) => {
    const stores = await storesOn(t, 'postgres', server)
    const late = await stores.open()
    const other = await stores.open()
    stores.clock.advance(LEASE_MS + 1)
    await late.reserve(hold('fresh', 700), 10_000)
    t.match(await other.recover(), { released: 0 })
    t.match(await other.budget('p', '2026-11'), { reservedMicros: 700 })
  })

  t.test('with the database away, a reserve fails at once with a 503 error, and a settlement is kept until it returns', async (t) => {
    const stores = await storesOn(t, 'postgres', server)
    const ledger = await stores.open()
    const answered = hold('answered', 1_000)
    await ledger.reserve(answered, 10_000)
    await server.stop()
    const started = performance.now()
    const refused = await Promise.resolve(ledger.reserve(hold('next', 1_000), 10_000)).catch((err: unknown) => err)
    t.ok(refused instanceof DependencyUnavailableError, 'DependencyUnavailableError')
    t.equal((refused as DependencyUnavailableError).status, 503)
    t.ok(performance.now() - started < 3_000, 'fast, not a hang')
    await t.rejects(ledger.settle(entry('answered', 700), 10_000, settled(answered)).committed, DependencyUnavailableError)
    await server.start()
    await ledger.recover()
    t.match(await ledger.budget('p', '2026-11'), { usedMicros: 700, reservedMicros: 0 }, 'charged once it could be, its hold released')
  })
})
