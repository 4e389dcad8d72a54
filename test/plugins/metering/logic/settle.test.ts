import t from 'tap'
import { chargedRow, chargeFor, crossedThresholds, limitNoted, releasedRow, spentRow } from '../../../../plugins/metering/logic/settle.ts'

t.test("a charge is the provider's count up to the hold; beyond it is overage", async (t) => {
  t.same(chargeFor(500, 500), { costMicros: 500 }, 'exactly the hold')
  t.same(chargeFor(501, 500), { costMicros: 500, overageMicros: 1 }, 'one micro beyond')
  t.same(chargeFor(501, undefined), { costMicros: 501 }, 'no hold (budgets not enforced): all of it')
})

t.test('thresholds are crossed at 80 and 90 percent of the limit, each once', async (t) => {
  t.same(crossedThresholds(799, 1_000), [])
  t.same(crossedThresholds(800, 1_000), [80])
  t.same(crossedThresholds(950, 1_000), [80, 90])
  t.same(crossedThresholds(950, 1_000, [80]), [90])
  t.same(crossedThresholds(950, 0), [], 'no limit, no thresholds')
})

t.test("a charge adds to the month's spend and overage and notes the thresholds it crosses", async (t) => {
  const { row, crossed } = chargedRow({ usedMicros: 700, reservedMicros: 300 }, { costMicros: 100, overageMicros: 5 }, 1_000)
  t.same(row, { usedMicros: 800, reservedMicros: 300, notified: [80], overageMicros: 5 })
  t.same(crossed, [80])
  t.same(
    chargedRow({ usedMicros: 0, reservedMicros: 0 }, { costMicros: 0 }, 1_000).row,
    { usedMicros: 0, reservedMicros: 0 },
    'nothing charged changes nothing',
  )
})

t.test("a key's month counts its spend", async (t) => {
  t.same(spentRow({ usedMicros: 10, reservedMicros: 5 }, 20), { usedMicros: 30, reservedMicros: 5 })
})

t.test('a hold given back leaves what is held never below nothing', async (t) => {
  t.same(releasedRow({ usedMicros: 0, reservedMicros: 300 }, 100), { usedMicros: 0, reservedMicros: 200 })
  t.same(releasedRow({ usedMicros: 0, reservedMicros: 100 }, 300), { usedMicros: 0, reservedMicros: 0 })
})

t.test('the limit is noted once a month', async (t) => {
  const noted = limitNoted({ usedMicros: 0, reservedMicros: 0, notified: [80] })
  t.same(noted, { usedMicros: 0, reservedMicros: 0, notified: [80, 100] })
  t.equal(limitNoted(noted!), undefined)
})
