import t from 'tap'
import { randomFraction, randomHex } from '../../../proxy/kit/random-pool.ts'

t.test('hex strings have the asked length and do not repeat across refills of the pool', async (t) => {
  const seen = new Set<string>()
  for (let i = 0; i < 5000; i++) {
    const hex = randomHex(6)
    if (!/^[0-9a-f]{12}$/.test(hex)) t.fail(`not 12 hex digits: ${hex}`)
    seen.add(hex)
  }
  t.equal(seen.size, 5000)
})

t.test('fractions fall in [0, 1) and spread evenly over a 32-letter alphabet', async (t) => {
  const counts = new Array<number>(32).fill(0)
  const draws = 64_000
  for (let i = 0; i < draws; i++) {
    const f = randomFraction()
    if (f < 0 || f >= 1) t.fail(`fraction out of range: ${f}`)
    counts[Math.floor(f * 32)]!++
  }
  // Each letter expects 2,000; 5 standard deviations either way is about ±220.
  t.ok(
    counts.every((c) => Math.abs(c - draws / 32) < 250),
    `counts ${counts.join(',')}`,
  )
})
