import t from 'tap'
import { cachePolicyOf } from '../../../../plugins/cache/logic/cache-control.ts'

t.test('without a Cache-Control header the cache serves and stores', async (t) => {
  t.strictSame(cachePolicyOf(undefined), { serve: true, store: true })
})

t.test('no-cache asks for a fresh answer that is still stored', async (t) => {
  t.strictSame(cachePolicyOf('no-cache'), { serve: false, store: true })
  t.strictSame(cachePolicyOf('max-age=60, No-Cache'), { serve: false, store: true })
})

t.test('no-store keeps the answer out of the cache, whatever else is asked', async (t) => {
  t.strictSame(cachePolicyOf('no-store'), { serve: false, store: false })
  t.strictSame(cachePolicyOf('no-cache, NO-STORE'), { serve: false, store: false })
})

t.test('other directives change nothing', async (t) => {
  t.strictSame(cachePolicyOf('max-age=0, private'), { serve: true, store: true })
  t.strictSame(cachePolicyOf(''), { serve: true, store: true })
})
