import t from 'tap'
import { cacheSchema, DEFAULT_POOL_THRESHOLD_BYTES } from '../../../plugins/cache/schema.ts'
import { pluginConfigError } from '../../helpers/plugin-config.ts'

t.test('every setting has a default', async (t) => {
  t.strictSame(cacheSchema.parse({}), { enabled: true, maxEntries: 100_000, poolThresholdBytes: DEFAULT_POOL_THRESHOLD_BYTES, sharedWaitMs: 10_000 })
})

t.test('unknown keys and out-of-range values are rejected', async (t) => {
  t.notOk(cacheSchema.safeParse({ ttl: 60 }).success)
  t.notOk(cacheSchema.safeParse({ maxEntries: 0 }).success)
  t.notOk(cacheSchema.safeParse({ poolThresholdBytes: -1 }).success)
  t.notOk(cacheSchema.safeParse({ sharedWaitMs: -1 }).success)
})

t.test('a bad value is refused with its path', async (t) => {
  t.match(pluginConfigError('cache', { maxEntries: 0 }), /^invalid configuration: plugins\.cache\.maxEntries: Too small/)
  t.match(pluginConfigError('cache', { ttl: 60 }), /^invalid configuration: plugins\.cache: Unrecognized key: "ttl"/)
})
