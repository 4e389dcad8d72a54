import t from 'tap'
import { cacheSchema, DEFAULT_POOL_THRESHOLD_BYTES } from '../../../plugins/cache/schema.ts'

t.test('every setting has a default', async (t) => {
  t.strictSame(cacheSchema.parse({}), { enabled: true, maxEntries: 100_000, poolThresholdBytes: DEFAULT_POOL_THRESHOLD_BYTES, sharedWaitMs: 10_000 })
})

t.test('unknown keys and out-of-range values are rejected', async (t) => {
  t.notOk(cacheSchema.safeParse({ ttl: 60 }).success)
  t.notOk(cacheSchema.safeParse({ maxEntries: 0 }).success)
  t.notOk(cacheSchema.safeParse({ poolThresholdBytes: -1 }).success)
  t.notOk(cacheSchema.safeParse({ sharedWaitMs: -1 }).success)
})
