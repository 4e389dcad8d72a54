import t from 'tap'
import { refusalOf } from '../../../../plugins/rate-limit/logic/check-limits.ts'

t.test('a burst refusal names the bucket size, which is the per-minute figure when the plan sets no burst', async (t) => {
  const own = refusalOf({ perMinute: 10, burst: null, perDay: null }, 'burst', 2_500)
  t.equal(own.message, 'This key may send 10 requests per minute (bursts of 10); retry in 3s.')
  t.equal(own.retryAfterSeconds, 3)
  t.match(refusalOf({ perMinute: 10, burst: 20, perDay: null }, 'burst', 1).message, /bursts of 20\)/)
})

t.test('a daily refusal names the quota', async (t) => {
  t.match(refusalOf({ perMinute: null, burst: null, perDay: 1_000 }, 'daily', 60_000).message, /daily quota of 1000 requests/)
})
