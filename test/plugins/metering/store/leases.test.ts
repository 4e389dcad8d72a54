// Budget leases: processes sharing one LMDB store carve holds from slices of the month leased in
// the store, so that a store transaction is taken per slice, not per request, and the slices
// never let the month go over its limit. Each "process" here is a ledger of its own owner on one
// store, as `serve --workers` runs them.
import t, { type Test } from 'tap'
import { openStore } from '../../../../proxy/stores/store.ts'
import { createLedger } from '../../../../plugins/metering/store/lmdb/ledger.ts'
import { leasedHolds, spareOf } from '../../../../plugins/metering/store/leases.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'
import { entry, hold } from './fixtures.ts'

function processes(t: Test, owners: readonly string[]) {
  const dir = freshDataDir(t)
  const store = openStore(dir)
  t.teardown(() => store.close())
  return owners.map((owner) => {
    const ledger = createLedger(store.forPlugin('metering'), undefined, owner)
    let growths = 0
    const grow = ledger.growLease
    ledger.growLease = (...args) => {
      growths++
      return grow(...args)
    }
    const holds = leasedHolds(ledger, { track: () => undefined })
    t.teardown(() => holds.close().catch(() => undefined))
    return { ledger, holds, growths: () => growths }
  })
}

t.test('a slice takes 1/16 of what is left, at most 256 holds more, and nothing with under 64 holds left', async (t) => {
  t.equal(spareOf(1_000, 1_000_000_000), 256_000)
  t.equal(spareOf(1_000, 1_600_000), 100_000)
  t.equal(spareOf(1_000, 63_999), 0)
})

t.test('one growth of the lease serves hundreds of holds, carved at once without a promise', async (t) => {
  const [one] = processes(t, ['101:a'])
  const first = one!.holds.reserve(hold('r0', 1_000), 1_000_000_000)
  t.ok(first instanceof Promise, 'the first hold grows the lease in the store')
  t.same(await first, { ok: true })
  const rest = Array.from({ length: 256 }, (_, i) => one!.holds.reserve(hold(`r${i + 1}`, 1_000), 1_000_000_000))
  t.ok(
    rest.every((result) => !(result instanceof Promise) && result.ok),
    'the next 256 are carved from memory',
  )
  t.equal(one!.growths(), 1)
  t.match(one!.ledger.budget('p', '2026-11'), { usedMicros: 0, reservedMicros: 257_000 }, 'the store sees the whole slice as reserved')
  t.same(await one!.holds.reserve(hold('r257', 1_000), 1_000_000_000), { ok: true })
  t.equal(one!.growths(), 2, 'a spent slice grows again')
})

t.test('two processes, 200 concurrent holds against a month that fits 10: exactly 10 admitted, never over', async (t) => {
  const both = processes(t, ['101:a', '102:b'])
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => both[i % 2]!.holds.reserve(hold(`r${i}`, 1_000), 10_000)))
  t.equal(results.filter((result) => result.ok).length, 10)
  t.match(both[0]!.ledger.budget('p', '2026-11'), { usedMicros: 0, reservedMicros: 10_000 })
  const refused = results.find((result) => !result.ok)
  t.same(refused, { ok: false, availableMicros: 0 })
})

t.test('a settlement shrinks the lease by its hold in its commit; an idle lease goes back after a sweep without use', async (t) => {
  const [one] = processes(t, ['101:a'])
  const limit = 1_000_000_000
  const r1 = hold('r1', 1_000)
  await one!.holds.reserve(r1, limit)
  await one!.ledger.settle(entry('r1', 400), limit, false, false, one!.holds.settling(r1)).committed
  t.match(one!.ledger.budget('p', '2026-11'), { usedMicros: 400, reservedMicros: 256_000 }, 'charged; the spare stays leased')
  await one!.holds.returnIdle()
  t.match(one!.ledger.budget('p', '2026-11'), { reservedMicros: 256_000 }, 'used since the last sweep: kept')
  await one!.holds.returnIdle()
  t.match(one!.ledger.budget('p', '2026-11'), { usedMicros: 400, reservedMicros: 0 }, 'idle for a whole sweep: given back')
  t.equal(one!.ledger.reservationCount(), 0, 'no lease record is left')
})

t.test('a hold settles its own lease: one carved before the leases lapsed shrinks none of the new ones', async (t) => {
  const [one] = processes(t, ['101:a'])
  const limit = 1_000_000_000
  const old = hold('old', 1_000)
  await one!.holds.reserve(old, limit)
  one!.holds.lapse()
  await one!.holds.reserve(hold('new', 1_000), limit)
  t.equal(one!.holds.settling(old), undefined, 'the lapsed lease is not shrunk by it')
  t.same(one!.holds.settling(hold('new', 1_000)), undefined, 'a hold never carved settles nothing')
})

t.test('a hold carved while the lease is given back is kept: only the unused part goes', async (t) => {
  const [one] = processes(t, ['101:a'])
  const limit = 1_000_000_000
  await one!.holds.reserve(hold('r1', 1_000), limit)
  const returning = one!.holds.close()
  t.same(one!.holds.reserve(hold('r2', 1_000), limit), { ok: true }, "carved before the return's transaction ran")
  await returning
  t.match(one!.ledger.budget('p', '2026-11'), { reservedMicros: 2_000 }, 'the two running holds stay reserved')
})

t.test('a process killed with a lease: recovery gives the lease back and its journaled settlements are charged once', async (t) => {
  const dir = freshDataDir(t)
  const dying = openStore(dir)
  const gone = createLedger(dying.forPlugin('metering'), undefined, '999995:gone')
  const holds = leasedHolds(gone, { track: () => undefined })
  const limit = 1_000_000_000
  const [committed, journaled, running] = [hold('committed', 1_000), hold('journaled', 1_000), hold('running', 1_000)]
  for (const each of [committed, journaled, running]) await holds.reserve(each, limit)
  await gone.settle(entry('committed', 600), limit, false, false, holds.settling(committed)).committed
  await dying.close()
  await t.rejects(gone.settle(entry('journaled', 700), limit, false, false, holds.settling(journaled)).committed, 'killed before this commit')
  await holds.close().catch(() => undefined)

  const store = openStore(dir)
  t.teardown(() => store.close())
  const survivor = createLedger(store.forPlugin('metering'), undefined, '999994:alive')
  t.match(survivor.budget('p', '2026-11'), { usedMicros: 600, reservedMicros: 256_000 }, 'the dead lease still reserved')
  t.same(await survivor.recover((owner) => owner === '999994:alive'), { released: 1, recovered: 0, replayed: 1, unreadable: 0 })
  t.match(survivor.budget('p', '2026-11'), { usedMicros: 1_300, reservedMicros: 0 }, 'each settlement charged once, the whole lease given back')
  t.equal(survivor.reservationCount(), 0)
})
