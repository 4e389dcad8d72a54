// `tollgate serve --workers 2` replaces a worker that dies, before or after it is ready: the
// primary survives, says what happened, and keeps serving.
import t from 'tap'
import { once } from 'node:events'
import { call } from '../helpers/http.ts'
import { firstWorker, launchPrimary, urlOf } from '../helpers/spawn-cluster.ts'

t.test('workers killed before and after they are ready are replaced and the gateway keeps serving', async (t) => {
  const primary = launchPrimary(t, 2)
  const doomed = await firstWorker(primary)
  process.kill(doomed, 'SIGKILL')
  await primary.until(/listening on/, 2)
  t.match(
    primary.output(),
    `tollgate: worker ${doomed} exited before it was ready (SIGKILL); starting another in 250 ms`,
    'the primary survives a worker that dies before it is ready',
  )
  const url = urlOf(primary.output())
  t.equal((await call(`${url}/healthz`)).status, 200, 'and serves')

  const [victim] = primary.workers()
  process.kill(victim!, 'SIGKILL')
  await primary.until(new RegExp(`worker ${victim} exited \\(SIGKILL\\); starting another in \\d+ ms`))
  await primary.until(/listening on/, 3)
  t.equal(primary.workers().length, 2, 'two workers again')
  t.notOk(primary.workers().includes(victim!))
  for (let i = 0; i < 4; i++) t.equal((await call(`${url}/healthz`)).status, 200)
  primary.child.kill('SIGTERM')
  const [code] = await once(primary.child, 'exit')
  t.equal(code, 0)
})
