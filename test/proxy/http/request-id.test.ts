import t from 'tap'
import { request } from 'undici'
import { call, hello } from '../../helpers/http.ts'
import { captureLog } from '../../helpers/log-capture.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
import { clientRequestIdOf, requestId } from '../../../proxy/http/request-id.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { createLedger } from '../../../plugins/metering/store/lmdb/ledger.ts'

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('a request id is a UUIDv7 carrying the milliseconds it was made at', async (t) => {
  const at = Date.UTC(2026, 10, 21, 12, 30, 15, 123)
  const id = requestId(at)
  t.match(id, V7)
  t.equal(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16), at)
})

t.test('ids made later sort after earlier ones, and no two are alike', async (t) => {
  const ids = Array.from({ length: 5000 }, (_, i) => requestId(1_700_000_000_000 + Math.floor(i / 10)))
  t.equal(new Set(ids).size, ids.length)
  const outOfOrder = ids.filter((id, i) => i % 10 === 0 && i > 0 && !(ids[i - 1]! < id))
  t.same(outOfOrder, [], 'each millisecond starts after the one before')
  t.same(
    ids.filter((id) => !V7.test(id)),
    [],
    'all are UUIDv7',
  )
})

t.test('a client id is kept when it is 1 to 128 of letters, digits and . _ : -', async (t) => {
  for (const id of ['a', 'req-42', 'trace:span.1_2', '0190a7c2-3b4d-7e8f-9a0b-1c2d3e4f5a6b', 'x'.repeat(128)]) {
    t.equal(clientRequestIdOf(id), id, id.slice(0, 40))
  }
  const hostile = [
    '',
    'x'.repeat(129),
    'two words',
    'a,b',
    'a, b',
    'bad\r\nset-cookie: x=1',
    'tab\there',
    'quote"d',
    '<script>',
    'ümlaut',
    'semi;colon',
    'slash/path',
    '\u0000',
    'emoji😀',
  ]
  for (const id of hostile) t.equal(clientRequestIdOf(id), undefined, JSON.stringify(id).slice(0, 40))
  t.equal(clientRequestIdOf(undefined), undefined, 'absent')
  t.equal(clientRequestIdOf(['a', 'b']), undefined, 'sent twice')
})

t.test('a valid x-request-id is echoed, logged, and kept apart from the records', async (t) => {
  const dataDir = freshDataDir(t)
  const {
    keys: [seeded],
    projectId,
  } = await seedProject(dataDir, {}, [{ type: 'sk', env: null }])
  const log = captureLog()
  const { url, gateway } = await startTestGateway(t, { dataDir, overrides: { logLevel: 'info' }, logDestination: log.destination })
  const first = await call(`${url}/api/ai/complete`, { key: seeded!.key, body: hello, headers: { 'x-request-id': 'client-req:1' } })
  const second = await call(`${url}/api/ai/complete`, {
    key: seeded!.key,
    body: { messages: [{ role: 'user', content: 'another' }] },
    headers: { 'x-request-id': 'client-req:1' },
  })
  t.equal(first.status, 200)
  t.equal(second.status, 200)
  t.equal(first.headers['x-request-id'], 'client-req:1', 'echoed, not replaced')
  t.equal(second.headers['x-request-id'], 'client-req:1', 'the same id sent twice is echoed twice')
  const lines = log.lines().filter((line) => line.msg === 'request')
  t.equal(lines.length, 2)
  t.same(
    lines.map((line) => line.reqId),
    ['client-req:1', 'client-req:1'],
    'the request line carries the client id',
  )
  const gatewayIds = lines.map((line) => String(line.gatewayReqId))
  t.match(gatewayIds[0], V7, 'and the gateway id its records are kept under')
  t.not(gatewayIds[0], gatewayIds[1])
  await gateway.close()
  const store = openStore(dataDir)
  t.teardown(() => store.close())
  const ledger = createLedger(store.forPlugin('metering'))
  t.equal(ledger.entry('client-req:1'), undefined, 'no record is keyed by the client id')
  for (const id of gatewayIds) t.match(ledger.entry(id), { id, projectId }, 'each request has its own ledger entry')
})

t.test('an invalid x-request-id is replaced, never echoed, and the replacement logged at debug without it', async (t) => {
  const log = captureLog()
  const { url } = await startTestGateway(t, { overrides: { logLevel: 'debug' }, logDestination: log.destination })
  const hostile = ['x'.repeat(129), 'a b', 'évil', '<img src=x>', 'a,b']
  for (const value of hostile) {
    const res = await call(`${url}/healthz`, { headers: { 'x-request-id': value } })
    t.match(res.headers['x-request-id'], V7, `replaced: ${value.slice(0, 20)}`)
  }
  const replaced = log.lines().filter((line) => line.msg?.startsWith('x-request-id replaced'))
  t.equal(replaced.length, hostile.length, 'one debug line per replacement')
  t.ok(
    replaced.every((line) => line.level === 20),
    'at debug',
  )
  for (const value of hostile) t.notOk(log.text().includes(value), `the bad value is not logged: ${value.slice(0, 20)}`)
})

t.test('an x-request-id sent twice is one invalid value, replaced', async (t) => {
  const { url } = await startTestGateway(t)
  const res = await request(`${url}/healthz`, { headers: ['x-request-id', 'one', 'x-request-id', 'two'] })
  await res.body.dump()
  t.match(String(res.headers['x-request-id']), V7)
})

t.test('without an x-request-id the gateway makes one', async (t) => {
  const { url } = await startTestGateway(t)
  const res = await call(`${url}/healthz`)
  t.match(res.headers['x-request-id'], V7)
})
