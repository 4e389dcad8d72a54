// The X-RateLimit-* figures of a request decided at a process's lease: the shared figures at the
// last lease, with the process's unused slice, as checkLimits would give them for one bucket.
import t from 'tap'
import { leaseVerdict } from '../../../../plugins/rate-limit/logic/lease-verdict.ts'
import type { PlanLimits } from '../../../../plugins/rate-limit/schema.ts'

const pro: PlanLimits = { perMinute: 100, burst: 200, perDay: 100_000 }
const MIDNIGHT = Date.parse('2026-11-29T00:00:00Z')

t.test('admitted: the limit is the burst, remaining the whole tokens left, reset when the bucket is full again', async (t) => {
  t.same(leaseVerdict(pro, { bucketTokens: 150.5, quotaLeft: 99_000 }, MIDNIGHT - 3_600_000), { allowed: true, limit: 200, remaining: 150, resetSeconds: 30 })
})

t.test('refused by the daily quota: its limit and the seconds to 00:00 UTC', async (t) => {
  const verdict = leaseVerdict(pro, { bucketTokens: 150, quotaLeft: 0 }, MIDNIGHT - 3_600_000, { by: 'daily', retryAfterMs: 3_600_000 })
  t.match(verdict, { allowed: false, limit: 100_000, remaining: 0, resetSeconds: 3_600, refusal: { by: 'daily', retryAfterSeconds: 3_600 } })
})

t.test('a quota alone binds: no bucket, so its figures are the ones shown', async (t) => {
  t.same(leaseVerdict({ perMinute: null, burst: null, perDay: 30 }, { quotaLeft: 12 }, MIDNIGHT - 10_000), {
    allowed: true,
    limit: 30,
    remaining: 12,
    resetSeconds: 10,
  })
})

t.test('refused by the bucket: retry after the wait for one token, in whole seconds', async (t) => {
  t.match(leaseVerdict(pro, { bucketTokens: 0.2, quotaLeft: 5 }, 0, { by: 'burst', retryAfterMs: 480 }), {
    allowed: false,
    remaining: 0,
    refusal: { by: 'burst', retryAfterSeconds: 1 },
  })
})
