import t from 'tap'
import { ascending, median, percentile, spreadOf } from '../../bench/stats.ts'

t.test('percentile is the nearest rank of the exact samples', async (t) => {
  const sorted = ascending(Array.from({ length: 100 }, (_, i) => 100 - i))
  t.equal(percentile(sorted, 50), 50)
  t.equal(percentile(sorted, 99), 99)
  t.equal(percentile(sorted, 100), 100)
  t.equal(percentile([0.25], 99), 0.25)
  t.ok(Number.isNaN(percentile([], 50)))
})

t.test('median and spread skip values that are not finite', async (t) => {
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([4, 1, 3, 2]), 2.5)
  t.equal(median([1, Number.NaN, 3]), 2)
  t.ok(Number.isNaN(median([])))
  t.same(spreadOf([0.6, Number.NaN, 0.5, 0.7]), { median: 0.6, min: 0.5, max: 0.7 })
})
