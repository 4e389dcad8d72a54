import t from 'tap'
import { availableMicros, covers, remainingMicros } from '../../../../plugins/metering/logic/budget.ts'

t.test('what a month has left for holds is its limit less its spend and its holds', async (t) => {
  t.equal(availableMicros({ usedMicros: 300, reservedMicros: 200 }, 1_000), 500)
  t.equal(
    availableMicros({ usedMicros: 900, reservedMicros: 200 }, 1_000),
    -100,
    'over the limit (a provider counted beyond its hold) leaves less than nothing',
  )
})

t.test('an amount exactly equal to what is left is covered, one micro more is not', async (t) => {
  t.ok(covers(500, 500))
  t.notOk(covers(500, 501))
  t.ok(covers(0, 0), 'a request that may cost nothing fits an exhausted budget')
  t.notOk(covers(-1, 0))
})

t.test('what the answer reports as left counts spend only, never below nothing', async (t) => {
  t.equal(remainingMicros(300, 1_000), 700)
  t.equal(remainingMicros(1_200, 1_000), 0)
})
