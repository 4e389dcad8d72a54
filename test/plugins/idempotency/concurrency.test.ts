// Retries that arrive while the first request under their key is still running: in the same
// process they wait for its answer; another live process's run is a 409 with retry-after; a run
// whose process died is taken over.
import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'undici'
import { completeRequestSchema } from '../../../proxy/pipeline/ai-request.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { lmdbRecords } from '../../../plugins/idempotency/store/lmdb.ts'
import { requestHash } from '../../../plugins/idempotency/logic/request-hash.ts'
import { call } from '../../helpers/http.ts'
import { freshDataDir, seedProject } from '../../helpers/start-gateway.ts'
import { body, idempotencyGateway, type IdempotencyGateway } from './fixtures.ts'
import { until } from '../../helpers/until.ts'

async function inFlight(gw: IdempotencyGateway): Promise<number> {
  const text = (await call(`${gw.url}/metrics`)).body as string
  return Number(/^tollgate_requests_in_flight\{route="ai_complete"\} (\d+)/m.exec(text)?.[1] ?? 0)
}

t.test('a retry while the first request runs waits for it and gets its answer; the model is called once', async (t) => {
  const gw = await idempotencyGateway(t)
  gw.mock.hold()
  const first = gw.send('complete', 'slow-1')
  await until(() => gw.mock.held === 1, 'the first request reached the model')
  const second = gw.send('complete', 'slow-1')
  await until(async () => (await inFlight(gw)) === 2, 'the retry is waiting')
  gw.mock.release()
  const [a, b] = await Promise.all([first, second])
  t.equal(a.status, 200)
  t.equal(b.status, 200)
  t.equal(b.headers['x-idempotent-replay'], 'true')
  t.strictSame(b.body, a.body)
  t.equal(gw.mock.requests.length, 1)
  t.equal(await gw.requestsMetered(), 1)
})

t.test('with no time to wait, the retry gets a 409 with retry-after', async (t) => {
  const gw = await idempotencyGateway(t, { idempotency: { waitMs: 0 } })
  gw.mock.hold()
  const first = gw.send('complete', 'slow-2')
  await until(() => gw.mock.held === 1, 'the first request reached the model')
  const second = await gw.send('complete', 'slow-2')
  t.equal(second.status, 409)
  t.equal(second.headers['retry-after'], '1')
  t.strictSame(second.body, {
    error: 'Conflict',
    message: 'A request with this Idempotency-Key is still being answered. Retry once it has finished to receive its answer.',
    code: 'idempotency_key_in_use',
  })
  gw.mock.release()
  t.equal((await first).status, 200)
  t.equal((await gw.send('complete', 'slow-2')).headers['x-idempotent-replay'], 'true')
})

t.test('when the first request ends without an answer, the waiting retry runs itself', async (t) => {
  const gw = await idempotencyGateway(t)
  gw.mock.hold()
  const gone = new AbortController()
  const first = request(`${gw.url}/api/ai/complete`, {
    method: 'POST',
    signal: gone.signal,
    headers: { 'x-api-key': gw.key, 'content-type': 'application/json', 'idempotency-key': 'abandoned', 'cache-control': 'no-store' },
    body: JSON.stringify(body),
  }).catch(() => undefined)
  await until(() => gw.mock.held === 1, 'the first request reached the model')
  const second = gw.send('complete', 'abandoned')
  await until(async () => (await inFlight(gw)) === 2, 'the retry is waiting')
  gone.abort()
  await first
  await until(() => gw.mock.requests.length === 2, 'the retry called the model')
  gw.mock.release()
  const answer = await second
  t.equal(answer.status, 200)
  t.equal(answer.headers['x-idempotent-replay'], undefined, 'it ran, it is no replay')
})

/** A gateway over a store whose record for `key` is in flight, owned by `owner`. */
async function gatewayWithRunningRecord(t: Test, key: string, owner: string) {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const store = openStore(dataDir)
  const hash = requestHash('ai_complete', false, completeRequestSchema.parse(body))
  const records = lmdbRecords(store.forPlugin('idempotency'), { inFlightLeaseMs: 3_600_000, owner })
  await records.claim({ projectId: seeded.projectId, key }, { hash, now: Date.now() }, 'req_elsewhere', () => {})
  await store.close()
  return idempotencyGateway(t, { dataDir, seeded: { projectId: seeded.projectId, key: seeded.keys[0]!.key } })
}

t.test('a request running in another live process is a 409 with retry-after', async (t) => {
  const gw = await gatewayWithRunningRecord(t, 'elsewhere', `${process.ppid}:another-process`)
  const res = await gw.send('complete', 'elsewhere')
  t.equal(res.status, 409)
  t.equal(res.body.code, 'idempotency_key_in_use')
  t.equal(res.headers['retry-after'], '1')
  t.equal(gw.mock.requests.length, 0)
})

t.test('a request left in flight by a process that died is run again', async (t) => {
  const child = spawn(process.execPath, ['-e', ''])
  await once(child, 'exit')
  const gw = await gatewayWithRunningRecord(t, 'orphan', `${child.pid}:a-dead-process`)
  const res = await gw.send('complete', 'orphan')
  t.equal(res.status, 200)
  t.equal(res.headers['x-idempotent-replay'], undefined)
  t.equal(gw.mock.requests.length, 1)
  t.match((await call(`${gw.url}/metrics`)).body, /tollgate_idempotent_requests_total\{outcome="taken_over"\} 1/)
  t.equal((await gw.send('complete', 'orphan')).headers['x-idempotent-replay'], 'true')
})
