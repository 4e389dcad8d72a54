import t from 'tap'
import { operatingCurve } from '../../../scripts/governor-model/operating-curve.ts'

t.test('each rate sets the threshold on the benign scores and counts what passes it', async (t) => {
  const benign = Array.from({ length: 100 }, (_, i) => i / 10)
  const attacks = [9.95, 9.85, 9.5, 8, 1]
  const nearMisses = [9.92, 9.6, 0]
  const [strict, loose] = operatingCurve(benign, attacks, nearMisses, [0.01, 0.05])
  t.equal(strict!.threshold, 9.8, 'one benign text of 100 lies above it')
  t.same(strict!.attacks, { flagged: 2, of: 5 })
  t.same(strict!.nearMisses, { flagged: 1, of: 3 })
  t.equal(loose!.threshold, 9.4)
  t.same(loose!.attacks, { flagged: 3, of: 5 })
  t.same(loose!.nearMisses, { flagged: 2, of: 3 })
})

t.test('without benign scores nothing passes', async (t) => {
  const [point] = operatingCurve([], [3], [2], [0.01])
  t.equal(point!.threshold, Infinity)
  t.same(point!.attacks, { flagged: 0, of: 1 })
})
