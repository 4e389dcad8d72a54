// The record store's promises, on LMDB and on PostgreSQL alike: one owner per key, answers kept,
// keys freed, and the sweep removing what is older than 24 hours. Then what only a shared store
// must keep: gateways racing on one key get one owner, a key answered on one gateway is replayed
// on another, a run whose gateway stopped renewing its lease is taken over, and a database that
// is away fails fast.
import t, { type Test } from 'tap'
import pino from 'pino'
import { openStore } from '../../../proxy/stores/store.ts'
import { openDatabase } from '../../../proxy/stores/database.ts'
import { DependencyUnavailableError } from '../../../proxy/pipeline/errors.ts'
import { RETENTION_MS, type StoredAnswer } from '../../../plugins/idempotency/logic/decide.ts'
import { lmdbRecords } from '../../../plugins/idempotency/store/lmdb.ts'
import { postgresRecords } from '../../../plugins/idempotency/store/postgres.ts'
import type { IdempotencyRecords } from '../../../plugins/idempotency/store/index.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { POSTGRES_MISSING, startPostgres, type PostgresServer } from '../../helpers/postgres-server.ts'
import { type ManualClock, manualClock } from '../../helpers/manual-clock.ts'

const log = pino({ level: 'silent' })
const NOW = Date.UTC(2025, 0, 1)
const OWNER_LEASE_MS = 30_000
const IN_FLIGHT_LEASE_MS = 3_600_000
const id = { projectId: 'proj_a', key: 'order-1' }
const request = (now = NOW, hash = 'h1') => ({ hash, now })
const answer: StoredAnswer = {
  result: {
    text: 'hi',
    provider: 'local',
    model: 'gpt-4o-mini',
    cacheHit: false,
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, costCents: 0.0001 },
  },
  headers: [['x-gateway-model', 'local/gpt-4o-mini']],
  keyId: 'key_1',
  answeredAt: NOW,
  chargedMicros: 1,
}

type Kind = 'lmdb' | 'postgres'

/** Opens record stores of one kind on one shared place; each is a gateway of its own on PostgreSQL. */
async function storesOn(t: Test, kind: Kind, server: PostgresServer | undefined) {
  const clock = manualClock(NOW)
  if (kind === 'lmdb') {
    const store = openStore(freshDataDir(t))
    t.teardown(() => store.close())
    const records = lmdbRecords(store.forPlugin('idempotency'), { inFlightLeaseMs: IN_FLIGHT_LEASE_MS, owner: '1:me', isLive: () => true })
    return { clock, open: async () => records }
  }
  const url = await server!.freshDatabase(t)
  let owners = 0
  return {
    clock,
    async open(): Promise<IdempotencyRecords> {
      const database = openDatabase(url, log, { maxConnections: 5 })
      t.teardown(() => database.close())
      const records = await postgresRecords(database.forPlugin('idempotency'), {
        clock,
        owner: `gateway-${++owners}`,
        ownerLeaseMs: OWNER_LEASE_MS,
        inFlightLeaseMs: IN_FLIGHT_LEASE_MS,
      })
      t.teardown(() => records.close())
      return records
    },
  }
}

async function suite(t: Test, kind: Kind, server?: PostgresServer) {
  const setup = async (t: Test) => (await storesOn(t, kind, server)).open()

  t.test('the first claim runs and writes an in-flight record; the next one waits for it', async (t) => {
    const records = await setup(t)
    let started = 0
    t.same(await records.claim(id, request(), 'req_1', () => started++), { kind: 'run', takenOver: false })
    t.equal(started, 1, 'onRun is called for the run only')
    t.match(await records.get(id), { state: 'in_flight', requestId: 'req_1', createdAt: NOW })
    t.same(await records.claim(id, request(), 'req_2', () => started++), { kind: 'wait', requestId: 'req_1' })
    t.same(await records.claim(id, request(NOW, 'h2'), 'req_3', () => started++), { kind: 'mismatch' })
    t.equal(started, 1)
  })

  t.test('concurrent claims in one batch give the key to exactly one request', async (t) => {
    const records = await setup(t)
    const decisions = await Promise.all(Array.from({ length: 8 }, (_, i) => records.claim(id, request(), `req_${i}`, () => {})))
    t.equal(decisions.filter((d) => d.kind === 'run').length, 1)
    t.equal(decisions.filter((d) => d.kind === 'wait').length, 7)
  })

  t.test('finish stores the answer of the owning run only; release frees the key of the owning run only', async (t) => {
    const records = await setup(t)
    await records.claim(id, request(), 'req_1', () => {})
    t.equal(await records.finish(id, 'req_other', answer), false)
    await records.release(id, 'req_other')
    t.equal((await records.get(id))?.state, 'in_flight')
    t.equal(await records.finish(id, 'req_1', answer), true)
    t.match(await records.get(id), { state: 'done', requestId: 'req_1', createdAt: NOW, answer })
    t.same(await records.claim(id, request(), 'req_2', () => {}), { kind: 'replay', record: await records.get(id) })
    t.equal(await records.finish(id, 'req_1', answer), false, 'an answered record is not written again')
    await records.release(id, 'req_1')
    t.equal(await records.get(id), undefined)
  })

  t.test('an answer is stored as it was given, whatever characters its text holds', async (t) => {
    const records = await setup(t)
    await records.claim(id, request(), 'req_1', () => {})
    const odd = { ...answer, result: { ...answer.result, text: 'nul \u0000, emoji \u{1f600}' } }
    t.equal(await records.finish(id, 'req_1', odd), true)
    t.match(await records.get(id), { state: 'done', answer: odd })
  })

  t.test('the sweep removes records older than 24 hours, oldest first, a bounded number per round', async (t) => {
    const records = await setup(t)
    for (let i = 0; i < 5; i++) await records.claim({ ...id, key: `old-${i}` }, request(NOW + i), `req_${i}`, () => {})
    await records.claim({ ...id, key: 'young' }, request(NOW + RETENTION_MS), 'req_young', () => {})
    const later = NOW + RETENTION_MS + 2
    t.equal(await records.sweep(later, 2), 2)
    t.equal(await records.get({ ...id, key: 'old-0' }), undefined)
    t.equal((await records.get({ ...id, key: 'old-2' }))?.state, 'in_flight')
    t.equal(await records.sweep(later, 100), 1, 'old-2 only: old-3 and old-4 are younger than 24 hours at this time')
    t.equal(await records.sweep(later + 10, 100), 2)
    t.equal((await records.get({ ...id, key: 'young' }))?.state, 'in_flight')
  })

  t.test('a key reused after 24 hours starts afresh, and the sweep leaves the new record alone', async (t) => {
    const records = await setup(t)
    await records.claim(id, request(), 'req_1', () => {})
    await records.finish(id, 'req_1', answer)
    const later = NOW + RETENTION_MS
    t.same(await records.claim(id, request(later, 'h2'), 'req_2', () => {}), { kind: 'run', takenOver: false })
    t.equal(await records.sweep(later + 1, 100), 0)
    t.match(await records.get(id), { state: 'in_flight', requestId: 'req_2', hash: 'h2', createdAt: later })
  })
}

t.test('LMDB', (t) => suite(t, 'lmdb'))

t.test('PostgreSQL', { skip: POSTGRES_MISSING }, async (t) => {
  const server = await startPostgres(t)
  await suite(t, 'postgres', server)

  async function twoGateways(t: Test): Promise<{ clock: ManualClock; a: IdempotencyRecords; b: IdempotencyRecords }> {
    const stores = await storesOn(t, 'postgres', server)
    return { clock: stores.clock, a: await stores.open(), b: await stores.open() }
  }

  t.test('gateways racing on one key: exactly one runs, the other gateway is told the key is in use', async (t) => {
    const { a, b } = await twoGateways(t)
    const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).claim(id, request(), `req_${i}`, () => {})))
    t.equal(decisions.filter((d) => d.kind === 'run').length, 1)
    const winner = decisions.findIndex((d) => d.kind === 'run') % 2
    decisions.forEach((d, i) => {
      if (d.kind !== 'run') t.equal(d.kind, i % 2 === winner ? 'wait' : 'busy', `claim ${i}`)
    })
  })

  t.test('a key answered on one gateway is replayed on another; another request under it is a mismatch there', async (t) => {
    const { a, b } = await twoGateways(t)
    await a.claim(id, request(), 'req_1', () => {})
    await a.finish(id, 'req_1', answer)
    const replayed = await b.claim(id, request(), 'req_2', () => {})
    t.equal(replayed.kind, 'replay')
    t.match(replayed, { record: { state: 'done', requestId: 'req_1', answer } })
    t.same(await b.claim(id, request(NOW, 'h2'), 'req_3', () => {}), { kind: 'mismatch' })
  })

  t.test('a run whose gateway stopped renewing is taken over once its lease runs out, not before', async (t) => {
    const { clock, a, b } = await twoGateways(t)
    await a.claim(id, request(), 'req_1', () => {})
    t.same(await b.claim(id, request(clock.now()), 'req_2', () => {}), { kind: 'busy' })
    clock.advance(OWNER_LEASE_MS + 1)
    t.same(await b.claim(id, request(clock.now()), 'req_2', () => {}), { kind: 'run', takenOver: true })
    t.equal(await a.finish(id, 'req_1', answer), false, 'the run taken over no longer stores its answer')
    t.match(await b.get(id), { state: 'in_flight', requestId: 'req_2' })
  })

  t.test('a gateway that stops on purpose gives up its runs at once', async (t) => {
    const { a, b } = await twoGateways(t)
    await a.claim(id, request(), 'req_1', () => {})
    await a.close()
    t.same(await b.claim(id, request(), 'req_2', () => {}), { kind: 'run', takenOver: true })
  })

  t.test('with the database away a claim fails at once with a 503 error; a release that failed is done once it is back', async (t) => {
    const { a, b } = await twoGateways(t)
    await a.claim(id, request(), 'req_1', () => {})
    await server.stop()
    const started = performance.now()
    const err = await a.claim({ ...id, key: 'other' }, request(), 'req_2', () => {}).catch((e: unknown) => e)
    t.ok(err instanceof DependencyUnavailableError, 'DependencyUnavailableError')
    t.equal((err as DependencyUnavailableError).status, 503)
    t.ok(performance.now() - started < 5_000, 'within the connect timeout')
    await t.rejects(a.release(id, 'req_1'))
    await server.start()
    await a.close()
    t.equal(await b.get(id), undefined)
  })
})
