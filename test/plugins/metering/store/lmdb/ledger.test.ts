import fs, { appendFileSync, readdirSync } from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { type PluginStore, openStore } from '../../../../../proxy/stores/store.ts'
import { createOutbox } from '../../../../../proxy/stores/events/lmdb.ts'
import { createLedger } from '../../../../../plugins/metering/store/lmdb/ledger.ts'
import { SELF_OWNER } from '../../../../../proxy/stores/process-owner.ts'
import { freshDataDir } from '../../../../helpers/start-gateway.ts'
import { entry } from '../fixtures.ts'

function setup(t: Test) {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const events = createOutbox(store.root, { now: () => Date.UTC(2026, 10, 21) })
  return { ledger: createLedger(store.forPlugin('metering'), events), events }
}

t.test('settling the same request twice counts it once', async (t) => {
  const { ledger } = setup(t)
  await ledger.settle(entry('r1', 500), 10_000).committed
  const row = await ledger.settle(entry('r1', 500), 10_000).committed
  t.equal(row.usedMicros, 500)
})

t.test('a reservation holds budget until it is settled to the real cost', async (t) => {
  const { ledger } = setup(t)
  t.same(await ledger.reserve('r1', { projectId: 'p', month: '2026-11', micros: 8_000, owner: 'x' }, 10_000), { ok: true })
  t.same(await ledger.reserve('r2', { projectId: 'p', month: '2026-11', micros: 3_000, owner: 'x' }, 10_000), { ok: false, availableMicros: 2_000 })
  await ledger.settle(entry('r1', 1_000), 10_000).committed
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 1_000, reservedMicros: 0 })
  t.same(await ledger.reserve('r2', { projectId: 'p', month: '2026-11', micros: 3_000, owner: 'x' }, 10_000), { ok: true })
})

t.test('usage events fire once each: 80% and 90% thresholds, then the limit on the first refusal', async (t) => {
  const { ledger, events } = setup(t)
  await ledger.settle(entry('a', 7_000), 10_000).committed
  t.same(events.pending(10), [], 'below 80%')
  await ledger.settle(entry('b', 1_500), 10_000).committed
  await ledger.settle(entry('c', 100), 10_000).committed
  await ledger.settle(entry('d', 600), 10_000).committed
  await ledger.settle(entry('e', 100), 10_000).committed
  const reached = events.pending(10)
  t.match(reached, [
    { type: 'usage.threshold_reached', project_id: 'p', data: { threshold_percent: 80, budget_limit: 0.01, budget_used: 0.0085, period: '2026-11' } },
    { type: 'usage.threshold_reached', project_id: 'p', data: { threshold_percent: 90, budget_used: 0.0092 } },
  ])
  t.equal(reached.length, 2)
  await ledger.reserve('f', { projectId: 'p', month: '2026-11', micros: 5_000, owner: 'x' }, 10_000)
  await ledger.reserve('g', { projectId: 'p', month: '2026-11', micros: 5_000, owner: 'x' }, 10_000)
  const all = events.pending(10)
  t.equal(all.length, 3)
  t.match(all[2], { type: 'usage.limit_exceeded', data: { budget_limit: 0.01, requested_cost: 0.005 } })
})

t.test('recovery releases only the reservations of processes that are gone', async (t) => {
  const { ledger } = setup(t)
  await ledger.reserve('live', { projectId: 'p', month: '2026-11', micros: 100, owner: 'alive' }, 10_000)
  await ledger.reserve('dead', { projectId: 'p', month: '2026-11', micros: 200, owner: 'dead' }, 10_000)
  t.same(await ledger.recover((owner) => owner === 'alive'), { released: 1, recovered: 0, replayed: 0, unreadable: 0 })
  t.match(ledger.budget('p', '2026-11'), { reservedMicros: 100 })
  t.equal(ledger.reservationCount(), 1)
})

t.test('settlements issued together commit together, each answered with the row as it left it', async (t) => {
  const { ledger, events } = setup(t)
  await ledger.reserve('held', { projectId: 'p', month: '2026-11', micros: 2_000, owner: 'x' }, 10_000)
  const lastMonth = { ...entry('old', 300), month: '2026-10', day: '2026-10-31' }
  const rows = await Promise.all([
    ledger.settle(entry('a', 4_000), 10_000).committed,
    ledger.settle(entry('a', 4_000), 10_000).committed,
    ledger.settle(entry('held', 4_500), 10_000).committed,
    ledger.settle({ ...entry('hit', 0), cacheHit: true, outcome: 'cache_hit' }, 10_000).committed,
    ledger.settle(lastMonth, 10_000).committed,
  ])
  t.same(
    rows.map((r) => r.usedMicros),
    [4_000, 4_000, 8_500, 8_500, 300],
    'the repeated id is counted once',
  )
  t.same(rows[2]?.notified, [80])
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 8_500, reservedMicros: 0 })
  t.match(ledger.budget('p', '2026-10'), { usedMicros: 300 })
  t.same(ledger.dayStats('p', '2026-11-21'), { hits: 1, misses: 2, models: { 'gpt-4o': { requests: 3, tokens: 60, costMicros: 8_500 } } })
  t.same(ledger.dayStats('p', '2026-10-31'), { hits: 0, misses: 1, models: { 'gpt-4o': { requests: 1, tokens: 20, costMicros: 300 } } })
  t.equal(ledger.reservationCount(), 0)
  t.match(events.pending(10), [{ type: 'usage.threshold_reached', data: { threshold_percent: 80, budget_used: 0.0085 } }])
})

t.test('settlements waiting on a closed store are refused, not left hanging', async (t) => {
  const store = openStore(freshDataDir(t))
  const ledger = createLedger(store.forPlugin('metering'))
  await store.close()
  const outcomes = await Promise.allSettled([ledger.settle(entry('a', 1), 10).committed, ledger.settle(entry('b', 1), 10).committed])
  t.same(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  )
})

t.test('a settlement that held nothing in the store leaves stored holds to their own requests', async (t) => {
  const { ledger } = setup(t)
  await ledger.reserve('r1', { projectId: 'p', month: '2026-11', micros: 8_000, owner: 'x' }, 10_000)
  const row = await ledger.settle(entry('r1', 1_000), 10_000, false).committed
  t.same(row, { usedMicros: 1_000, reservedMicros: 8_000 })
  t.equal(ledger.reservationCount(), 1)
  t.same(await ledger.settle(entry('r2', 1_000), 10_000).committed, { usedMicros: 2_000, reservedMicros: 8_000 }, 'a request with no hold settles as before')
})

t.test("a dead process's stream is settled to its last checkpoint as recovered, a live one's is left running", async (t) => {
  const { ledger } = setup(t)
  await ledger.reserve('cut', { projectId: 'p', month: '2026-11', micros: 900, owner: 'dead' }, 10_000)
  await ledger.checkpoint([
    { entry: { ...entry('cut', 300), outcome: 'recovered' }, owner: 'dead', limitMicros: 10_000 },
    { entry: { ...entry('running', 200), outcome: 'recovered' }, owner: 'alive', limitMicros: 10_000 },
  ])
  t.same(await ledger.recover((owner) => owner === 'alive'), { released: 0, recovered: 1, replayed: 0, unreadable: 0 })
  t.match(ledger.entry('cut'), { outcome: 'recovered', costMicros: 300, completionTokens: 10 })
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 300, reservedMicros: 0 }, 'charged once, its hold released')
  t.equal(ledger.entry('running'), undefined)
  t.equal(ledger.checkpointCount(), 1)
  await ledger.settle(entry('running', 250), 10_000, false, true).committed
  t.equal(ledger.checkpointCount(), 0, 'settling a checkpointed stream removes its checkpoint')
  t.same(await ledger.recover(() => false), { released: 0, recovered: 0, replayed: 0, unreadable: 0 }, 'nothing is settled twice')
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 550 })
})

t.test('a checkpoint that arrives after its stream was settled is dropped', async (t) => {
  const { ledger } = setup(t)
  await ledger.settle(entry('done', 400), 10_000, false, true).committed
  await ledger.checkpoint([{ entry: { ...entry('done', 100), outcome: 'recovered' }, owner: 'dead', limitMicros: 10_000 }])
  t.equal(ledger.checkpointCount(), 0)
  t.same(await ledger.recover(() => false), { released: 0, recovered: 0, replayed: 0, unreadable: 0 })
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 400 })
})

t.test("overage is kept on the month's row beside the charge, never added to it", async (t) => {
  const { ledger } = setup(t)
  await ledger.settle({ ...entry('over', 1_000), overageMicros: 250 }, 10_000).committed
  await ledger.settle({ ...entry('over2', 500), overageMicros: 50 }, 10_000).committed
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 1_500, overageMicros: 300 })
  t.match(ledger.entry('over'), { costMicros: 1_000, overageMicros: 250 })
})

t.test('a journaled settlement counts at once, before its commit', async (t) => {
  const { ledger } = setup(t)
  const settled = ledger.settle(entry('now', 700), 10_000)
  t.match(settled.row, { usedMicros: 700 }, 'the row is known without waiting')
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 700 }, 'holds and reports see it too')
  t.match(ledger.entry('now'), { costMicros: 700 })
  t.match(await settled.committed, { usedMicros: 700 })
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 700 }, 'counted once after the commit')
})

t.test('a process alone on its store holds and settles from its own count, reading no month row back, and counts each charge once', async (t) => {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const plugin = store.forPlugin('metering')
  let rowReads = 0
  const counted: PluginStore = {
    ...plugin,
    open<V>(name: string, options?: Parameters<PluginStore['open']>[1]) {
      const db = plugin.open<V>(name, options)
      if (name === 'budgets') {
        const get = db.get.bind(db)
        db.get = (key) => {
          rowReads++
          return get(key)
        }
      }
      return db
    },
  }
  const ledger = createLedger(counted, undefined, SELF_OWNER, true)
  await ledger.settle(entry('first', 700), 10_000).committed
  const readsBefore = rowReads
  const second = ledger.settle(entry('second', 200), 10_000)
  t.match(second.row, { usedMicros: 900 }, 'the row as this charge leaves it')
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 900 }, 'while its commit runs')
  t.equal(rowReads, readsBefore, 'no month row was read on the way')
  await second.committed
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 900 }, 'counted once after the commit')
  await ledger.limitExceeded('p', '2026-11', 1_000, 500)
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 900, notified: [100] }, 'a write outside a settlement is read back')
})

t.test('a settlement the process could not commit is replayed once by the next start', async (t) => {
  const dir = freshDataDir(t)
  const dying = openStore(dir)
  const before = createLedger(dying.forPlugin('metering'), undefined, '999999:gone')
  await dying.close()
  const settled = before.settle(entry('answered', 900), 10_000)
  await t.rejects(settled.committed, 'the commit never happened')

  const store = openStore(dir)
  t.teardown(() => store.close())
  const after = createLedger(store.forPlugin('metering'))
  t.same(await after.recover((owner) => owner !== '999999:gone'), { released: 0, recovered: 0, replayed: 1, unreadable: 0 })
  t.match(after.entry('answered'), { costMicros: 900 })
  t.match(after.budget('p', '2026-11'), { usedMicros: 900 })
  t.same(await after.recover(() => false), { released: 0, recovered: 0, replayed: 0, unreadable: 0 }, 'the journal is gone once applied')
  t.match(after.budget('p', '2026-11'), { usedMicros: 900 })
})

t.test('a journal line cut by a crash is counted as unreadable; the lines before it are applied', async (t) => {
  const dir = freshDataDir(t)
  const dying = openStore(dir)
  const directory = dying.forPlugin('metering').directory
  const before = createLedger(dying.forPlugin('metering'), undefined, '999998:gone')
  await dying.close()
  await t.rejects(before.settle(entry('first', 100), 10_000).committed)
  const [file] = readdirSync(directory)
  appendFileSync(join(directory, file!), '{"entry":{"id":"cut","proj')

  const store = openStore(dir)
  t.teardown(() => store.close())
  const after = createLedger(store.forPlugin('metering'))
  t.same(await after.recover((owner) => owner !== '999998:gone'), { released: 0, recovered: 0, replayed: 1, unreadable: 1 })
  t.match(after.budget('p', '2026-11'), { usedMicros: 100 })
})

t.test("a live process's journal is left alone, and a journal whose lines are all committed is removed at close", async (t) => {
  const dir = freshDataDir(t)
  const store = openStore(dir)
  t.teardown(() => store.close())
  const directory = store.forPlugin('metering').directory
  const other = createLedger(store.forPlugin('metering'), undefined, '999997:running')
  const ledger = createLedger(store.forPlugin('metering'))
  await other.settle(entry('theirs', 100), 10_000).committed
  t.same(await ledger.recover((owner) => owner === '999997:running'), { released: 0, recovered: 0, replayed: 0, unreadable: 0 })
  t.equal(readdirSync(directory).length, 1, 'the running process keeps its journal')
  other.close()
  t.same(readdirSync(directory), [])
})

t.test("a stream's first checkpoint is journaled at once: a dead process's stream is settled to it, once, unless something later settled it", async (t) => {
  const dir = freshDataDir(t)
  const dying = openStore(dir)
  const before = createLedger(dying.forPlugin('metering'), undefined, '999996:gone')
  const first = (id: string) => ({ entry: { ...entry(id, 30), completionTokens: 0, outcome: 'recovered' }, owner: '999996:gone', limitMicros: 10_000 })
  await before.reserve('cut', { projectId: 'p', month: '2026-11', micros: 900, owner: '999996:gone' }, 10_000)
  await before.startStreams([first('cut'), first('later'), first('ended'), first('journaled')])
  t.equal(before.checkpointCount(), 0, 'nothing waited for a store transaction')
  await before.checkpoint([{ ...first('later'), entry: { ...first('later').entry, completionTokens: 40, costMicros: 200 } }])
  await before.settle(entry('ended', 500), 10_000, false, false).committed
  await dying.close()
  await t.rejects(before.settle(entry('journaled', 700), 10_000, false, false).committed, 'the process died before this commit')

  const store = openStore(dir)
  t.teardown(() => store.close())
  const after = createLedger(store.forPlugin('metering'))
  t.same(await after.recover((owner) => owner !== '999996:gone'), { released: 0, recovered: 2, replayed: 1, unreadable: 0 })
  t.match(after.entry('cut'), { outcome: 'recovered', costMicros: 30, completionTokens: 0 }, 'cut before any other checkpoint: its prompt')
  t.match(after.entry('later'), { outcome: 'recovered', costMicros: 200 }, 'a later checkpoint wins over the first')
  t.match(after.entry('ended'), { outcome: 'ok', costMicros: 500 }, 'a settled stream is not charged again')
  t.match(after.entry('journaled'), { outcome: 'ok', costMicros: 700 }, 'nor a journaled settlement')
  t.match(after.budget('p', '2026-11'), { usedMicros: 1_430, reservedMicros: 0 }, 'each charged once, the hold released')
  t.same(await after.recover(() => false), { released: 0, recovered: 0, replayed: 0, unreadable: 0 }, 'nothing twice')
})

t.test('a journal of first checkpoints is removed once their streams are settled', async (t) => {
  const dir = freshDataDir(t)
  const store = openStore(dir)
  t.teardown(() => store.close())
  const directory = store.forPlugin('metering').directory
  const ledger = createLedger(store.forPlugin('metering'))
  await ledger.startStreams([{ entry: { ...entry('s', 30), outcome: 'recovered' }, owner: 'me', limitMicros: 10_000 }])
  await ledger.settle(entry('s', 400), 10_000, false, false).committed
  ledger.close()
  t.same(readdirSync(directory), [])
})

/** Counts the journal's write(2) calls from now on. */
function countWrites(t: Test): () => number {
  const real = fs.writeSync
  let writes = 0
  fs.writeSync = ((...args: Parameters<typeof real>) => {
    writes++
    return real(...args)
  }) as typeof real
  syncBuiltinESMExports()
  t.teardown(() => {
    fs.writeSync = real
    syncBuiltinESMExports()
  })
  return () => writes
}

t.test(
  "streams admitted in a turn with settlements join its one journal write; every line is committed once, a stream's settled in its own turn too",
  async (t) => {
    const store = openStore(freshDataDir(t))
    t.teardown(() => store.close())
    const directory = store.forPlugin('metering').directory
    const ledger = createLedger(store.forPlugin('metering'))
    const first = (id: string) => ({ entry: { ...entry(id, 30), completionTokens: 0, outcome: 'recovered' }, owner: SELF_OWNER, limitMicros: 10_000 })
    const writes = countWrites(t)
    const answered = ledger.settle(entry('answered', 100), 10_000, false, false)
    const started = ledger.startStreams([first('running'), first('brief')])
    const brief = ledger.settle(entry('brief', 200), 10_000, false, false)
    t.equal(await answered.written, true)
    t.equal(writes(), 1, "one write for the turn: its settlements and its streams' first checkpoints")
    await started
    await Promise.all([answered.committed, brief.committed])
    await ledger.settle(entry('running', 300), 10_000, false, false).committed
    t.equal(ledger.checkpointCount(), 0, 'nothing checkpointed in the store')
    t.match(ledger.budget('p', '2026-11'), { usedMicros: 600, reservedMicros: 0 })
    ledger.close()
    t.same(readdirSync(directory), [], 'every line committed, once: the journal is removed')
  },
)

t.test("a key with a budget of its own: its hold counts against its month row and the project's, and a settlement frees both", async (t) => {
  const { ledger } = setup(t)
  // The key spent before it had a budget: its month row counts that too.
  await ledger.settle(entry('before', 2_000), 100_000).committed
  t.match(ledger.budget('k', '2026-11'), { usedMicros: 2_000 })
  const held = { projectId: 'p', month: '2026-11', micros: 5_000, owner: 'x', keyId: 'k' }
  t.same(await ledger.reserve('r1', held, 100_000, 10_000), { ok: true })
  t.same(
    await ledger.reserve('r2', held, 100_000, 10_000),
    { ok: false, availableMicros: 3_000, byKey: true },
    'refused by the key, though the project has room',
  )
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 2_000, reservedMicros: 5_000 }, 'a refused hold holds nothing')
  await ledger.settle(entry('r1', 1_000), 100_000).committed
  t.match(ledger.budget('k', '2026-11'), { usedMicros: 3_000, reservedMicros: 0 })
  t.match(ledger.budget('p', '2026-11'), { usedMicros: 3_000, reservedMicros: 0 })
  t.same(await ledger.reserve('r2', held, 100_000, 10_000), { ok: true })
})

t.test('spend by key, user and tag is added up per day as entries settle, once per request', async (t) => {
  const { ledger } = setup(t)
  await ledger.settle({ ...entry('a', 100), user: 'alice', tags: ['x', 'y'] }, 100_000).committed
  await ledger.settle({ ...entry('b', 200), user: 'alice', tags: ['x'] }, 100_000).committed
  await ledger.settle({ ...entry('b', 200), user: 'alice', tags: ['x'] }, 100_000).committed
  await ledger.settle({ ...entry('c', 400), keyId: 'k2' }, 100_000).committed
  t.same(
    ledger.spendRows('p', '2026-11-21', 'key'),
    [
      { value: 'k2', requests: 1, tokens: 20, costMicros: 400 },
      { value: 'k', requests: 2, tokens: 40, costMicros: 300 },
    ],
    'the costliest first',
  )
  t.same(ledger.spendRows('p', '2026-11-21', 'user'), [{ value: 'alice', requests: 2, tokens: 40, costMicros: 300 }])
  t.same(ledger.spendRows('p', '2026-11-21', 'tag'), [
    { value: 'x', requests: 2, tokens: 40, costMicros: 300 },
    { value: 'y', requests: 1, tokens: 20, costMicros: 100 },
  ])
  t.same(ledger.spendRows('p', '2026-11-22', 'tag'), [], 'another day has its own rows')
})
