import t from 'tap'
import { takeToken, type BucketState } from '../../../../plugins/rate-limit/logic/token-bucket.ts'
import { takeQuota } from '../../../../plugins/rate-limit/logic/daily-quota.ts'

const limits = { perMinute: 60, capacity: 3 }

t.test('a full bucket lets a burst of its capacity through, then refuses with the wait for one token', async (t) => {
  let state: BucketState | undefined
  const allowed: boolean[] = []
  for (let i = 0; i < 4; i++) {
    const take = takeToken(state, limits, 1_000)
    state = take.state
    allowed.push(take.allowed)
    if (i === 3) t.equal(take.retryAfterMs, 1000, 'one token per second at 60/min')
  }
  t.same(allowed, [true, true, true, false])
})

t.test('the bucket refills with time and never beyond its capacity', async (t) => {
  let state = takeToken(undefined, limits, 0).state
  state = takeToken(state, limits, 0).state
  state = takeToken(state, limits, 0).state
  t.equal(takeToken(state, limits, 0).allowed, false)
  t.equal(takeToken(state, limits, 1_000).allowed, true, 'a second later one token is back')
  const muchLater = takeToken(state, limits, 3_600_000)
  t.equal(muchLater.remaining, 2, 'capacity 3 minus the one just taken')
  t.equal(muchLater.fullInMs, 1_000)
})

t.test('the daily quota counts per UTC day and resets at midnight', async (t) => {
  const day = 86_400_000
  let q = takeQuota(undefined, 2, 10 * day + 5)
  t.equal(q.remaining, 1)
  q = takeQuota(q.state, 2, 10 * day + 6)
  t.equal(q.allowed, true)
  const refused = takeQuota(q.state, 2, 11 * day - 1)
  t.equal(refused.allowed, false)
  t.equal(refused.resetInMs, 1)
  t.equal(takeQuota(refused.state, 2, 11 * day).allowed, true, 'a new day')
})
