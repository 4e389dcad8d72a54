// Leases of a key's requests: whatever several owners do (lease, admit from their slices, give back,
// vanish with a slice), they never admit together more than one bucket and one daily count would.
import t from 'tap'
import fc from 'fast-check'
import { DAY_MS, LEASE_LIFE_MS, dayOf, leaseTokens, spareOf, type SharedLimitState } from '../../../../plugins/rate-limit/logic/token-leases.ts'
import type { PlanLimits } from '../../../../plugins/rate-limit/schema.ts'

t.test('a slice takes 1/16 of what is left beyond the requests waiting, at most 256 more, and nothing with under 64 left', async (t) => {
  t.equal(spareOf(1_000_000), 256)
  t.equal(spareOf(1_600), 100)
  t.equal(spareOf(63), 0)
})

interface Owner {
  left: number
  untilMs: number
  day: number
}

type Step =
  | { readonly kind: 'requests'; readonly owner: number; readonly count: number }
  | { readonly kind: 'giveBack'; readonly owner: number }
  | { readonly kind: 'vanish'; readonly owner: number }
  | { readonly kind: 'wait'; readonly ms: number }

const OWNERS = 3
const ownerArbitrary = fc.integer({ min: 0, max: OWNERS - 1 })
const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('requests' as const), owner: ownerArbitrary, count: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 1, arbitrary: ownerArbitrary.map((owner) => ({ kind: 'giveBack' as const, owner })) },
  { weight: 1, arbitrary: ownerArbitrary.map((owner) => ({ kind: 'vanish' as const, owner })) },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: 1, max: 3_000 }), fc.integer({ min: 1, max: 2 * DAY_MS })).map((ms) => ({ kind: 'wait' as const, ms })) },
)
const limitsArbitrary: fc.Arbitrary<PlanLimits> = fc
  .record({
    perMinute: fc.option(fc.integer({ min: 1, max: 60_000 })),
    burst: fc.option(fc.integer({ min: 1, max: 120 })),
    perDay: fc.option(fc.integer({ min: 1, max: 150 })),
  })
  .filter((l) => l.perMinute !== null || l.perDay !== null)

/** Runs the steps; returns when each admitted request was admitted. */
function admissions(limits: PlanLimits, start: number, steps: readonly Step[]): number[] {
  let state: SharedLimitState | undefined
  let now = start
  const owners: Owner[] = Array.from({ length: OWNERS }, () => ({ left: 0, untilMs: 0, day: 0 }))
  const admitted: number[] = []
  const lease = (i: number, need: number) => {
    const owner = owners[i]!
    const grant = leaseTokens(limits, state, now, { owner: String(i), need, unused: owner.left, unusedDay: owner.day })
    state = grant.next
    Object.assign(owner, { left: grant.granted, untilMs: grant.untilMs, day: dayOf(now) })
  }
  for (const step of steps) {
    if (step.kind === 'wait') now += step.ms
    else if (step.kind === 'vanish') owners[step.owner] = { left: 0, untilMs: 0, day: 0 }
    else if (step.kind === 'giveBack') lease(step.owner, 0)
    else {
      for (let n = 0; n < step.count; n++) {
        const owner = owners[step.owner]!
        if (owner.left < 1 || now >= owner.untilMs || dayOf(now) !== owner.day) lease(step.owner, 1)
        if (owner.left >= 1) {
          owner.left--
          admitted.push(now)
        }
      }
    }
  }
  return admitted
}

t.test("owners that lease, admit, give back and vanish in any order never admit more than one bucket and one day's count", async (t) => {
  fc.assert(
    fc.property(limitsArbitrary, fc.integer({ min: 0, max: DAY_MS }), fc.array(stepArbitrary, { maxLength: 100 }), (limits, start, steps) => {
      const times = admissions(limits, 1_700_000_000_000 + start, steps)
      if (limits.perMinute !== null) {
        const capacity = limits.burst ?? limits.perMinute
        // In any interval, at most the bucket's size and what it refills meanwhile.
        for (let i = 0; i < times.length; i++) {
          for (let j = i; j < times.length; j++) {
            if (j - i + 1 > capacity + (times[j]! - times[i]!) * (limits.perMinute / 60_000) + 1e-9) {
              throw new Error(`${j - i + 1} admitted between ${times[i]} and ${times[j]}`)
            }
          }
        }
      }
      if (limits.perDay !== null) {
        const perDay = new Map<number, number>()
        for (const at of times) perDay.set(dayOf(at), (perDay.get(dayOf(at)) ?? 0) + 1)
        for (const [day, count] of perDay) if (count > limits.perDay) throw new Error(`${count} admitted on day ${day}`)
      }
    }),
    { numRuns: 300 },
  )
  t.pass('300 random runs within the limits')
})

t.test('a lease that lapsed gives nothing back: its process admits no more from it, and its tokens count as spent', async (t) => {
  const limits: PlanLimits = { perMinute: 60, burst: 100, perDay: null }
  const first = leaseTokens(limits, undefined, 0, { owner: 'a', need: 1, unused: 0, unusedDay: 0 })
  t.match(first, { granted: 7, bucketFree: 93, untilMs: LEASE_LIFE_MS })
  const late = leaseTokens(limits, first.next, LEASE_LIFE_MS, { owner: 'a', need: 0, unused: 6, unusedDay: 0 })
  t.equal(late.bucketFree, 93 + LEASE_LIFE_MS / 1_000, 'only the refill')
  t.same(late.next.leases, undefined, 'and the lease is gone')
})
