// `tollgate serve --workers N` whose workers keep failing at start: the primary gives up in one
// clear line and exits 1 instead of restarting them forever.
import t from 'tap'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { launchPrimary } from '../helpers/spawn-cluster.ts'

t.test('workers that keep failing at start make the primary give up with a clear line and exit 1', async (t) => {
  const taken = createServer().listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.teardown(() => taken.close())
  const port = (taken.address() as AddressInfo).port
  const startedAt = Date.now()
  const primary = launchPrimary(t, 2, { PORT: String(port) })
  const [code] = await once(primary.child, 'exit')
  const ms = Date.now() - startedAt
  t.equal(code, 1)
  t.match(primary.output(), `tollgate: port ${port} is in use (PORT)`, 'each worker says why it failed')
  t.match(primary.output(), /3 worker starts in a row failed and none is serving: giving up/, 'the primary says why it stops')
  t.equal((primary.output().match(/is in use/g) ?? []).length, 3, 'after three starts')
  // Three worker starts and 0.75 s of backoff: a few seconds on an idle machine, a minute on a
  // loaded one (a start then takes some 20 s).
  t.ok(ms < 100_000, `within ${ms} ms`)
  t.notMatch(primary.output(), /\n\s+at /, 'no stack trace')
})
