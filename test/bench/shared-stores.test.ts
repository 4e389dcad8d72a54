import t from 'tap'
import { sharedStoresReadiness } from '../../bench/lanes.ts'

t.test('a shared-store row is as named only when /readyz says PostgreSQL and Redis are up', async (t) => {
  const ready = (dependencies: unknown, status = 200) => sharedStoresReadiness(status, JSON.stringify({ status: 'ready', dependencies }))
  t.same(ready({ postgres: 'up', redis: 'up' }), { up: true, said: '/readyz 200, postgres up, redis up' })
  t.equal(ready({ postgres: 'up' }).up, false, 'Redis not configured')
  t.equal(ready({ postgres: 'up', redis: 'down' }, 503).up, false)
  t.same(sharedStoresReadiness(200, '{"status":"ready"}'), { up: false, said: '/readyz 200, no dependencies' }, 'a gateway on LMDB')
  t.equal(sharedStoresReadiness(502, 'not json').up, false)
})
