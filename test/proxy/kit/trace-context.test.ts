import t, { type Test } from 'tap'
import { call, hello } from '../../helpers/http.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
import { newSpanId, traceParentOf } from '../../../proxy/kit/trace-context.ts'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'
const VALID = `00-${TRACE_ID}-${PARENT_ID}-01`

t.test('a traceparent is read per W3C Trace Context, version 00', async (t) => {
  t.same(traceParentOf({ traceparent: VALID }), { traceId: TRACE_ID, parentId: PARENT_ID, flags: '01' })
  t.same(traceParentOf({ traceparent: VALID, tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE' }), {
    traceId: TRACE_ID,
    parentId: PARENT_ID,
    flags: '01',
    tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
  })
  t.same(
    traceParentOf({ traceparent: VALID, tracestate: 'a=1'.padEnd(600, 'x') }),
    { traceId: TRACE_ID, parentId: PARENT_ID, flags: '01' },
    'an oversized tracestate is dropped',
  )
  const invalid = [
    `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
    `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
    `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`,
    `ff-${TRACE_ID}-${PARENT_ID}-01`,
    `01-${TRACE_ID}-${PARENT_ID}-01-extra`,
    `00-${TRACE_ID}-${PARENT_ID}-1`,
    `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`,
    `${VALID} `,
    `00_${TRACE_ID}_${PARENT_ID}_01`,
    '',
    'garbage',
  ]
  for (const traceparent of invalid) t.equal(traceParentOf({ traceparent }), undefined, traceparent)
  t.equal(traceParentOf({}), undefined, 'absent')
  t.match(newSpanId(), /^[0-9a-f]{16}$/)
})

async function setup(t: Test) {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const env = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-openai', ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'test-anthropic' }
  const { url } = await startTestGateway(t, { dataDir, env })
  return { mock, url, key: seeded.keys[0]!.key }
}

t.test('the provider call continues a valid incoming trace with a span id of its own', async (t) => {
  const { mock, url, key } = await setup(t)
  const res = await call(`${url}/api/ai/complete`, { key, body: hello, headers: { traceparent: VALID, tracestate: 'rojo=00f067aa0ba902b7' } })
  t.equal(res.status, 200)
  const sent = mock.requests[0]!.headers
  const [version, traceId, spanId, flags] = String(sent.traceparent).split('-')
  t.equal(version, '00')
  t.equal(traceId, TRACE_ID, 'the same trace')
  t.match(spanId, /^[0-9a-f]{16}$/)
  t.not(spanId, PARENT_ID, "a new span id, not the caller's")
  t.equal(flags, '01', "the caller's flags")
  t.equal(sent.tracestate, 'rojo=00f067aa0ba902b7', 'tracestate passed through')
})

t.test('a streamed call to Anthropic carries it too', async (t) => {
  const { mock, url, key } = await setup(t)
  const res = await call(`${url}/api/ai/chat`, { key, body: { ...hello, quality: 'cheap' }, headers: { traceparent: VALID } })
  t.equal(res.status, 200)
  t.equal(mock.requests[0]!.path, '/v1/messages')
  t.match(String(mock.requests[0]!.headers.traceparent), new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`))
  t.equal(mock.requests[0]!.headers.tracestate, undefined, 'no tracestate came in, none goes out')
})

t.test('with no valid traceparent in, none goes out (tracing off)', async (t) => {
  const { mock, url, key } = await setup(t)
  await call(`${url}/api/ai/complete`, { key, body: hello })
  await call(`${url}/api/ai/complete`, {
    key,
    body: { messages: [{ role: 'user', content: 'two' }] },
    headers: { traceparent: `00-${'0'.repeat(32)}-${PARENT_ID}-01`, tracestate: 'a=b' },
  })
  t.equal(mock.requests.length, 2)
  for (const sent of mock.requests) {
    t.equal(sent.headers.traceparent, undefined)
    t.equal(sent.headers.tracestate, undefined)
  }
})
