import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Agent, request } from 'undici'
import { OPENAI_BODY, OPENAI_HEADERS, OPENAI_STREAM_BODY } from '../../bench/payload.ts'
import { Fleet } from '../../bench/processes.ts'
import { sendOnce } from '../../bench/stream-client.ts'
import type { LeanForwarderSpec } from '../../bench/targets/lean-forwarder.ts'
import type { MockSpec } from '../../bench/targets/mock-upstream.ts'

const fleet = new Fleet()
t.teardown(() => fleet.stopAll())

const mockSpec: MockSpec = { latencyMs: 0, chunks: 3, chunkDelayMs: 100 }
const mock = await fleet.start<{ url: string }>('mock', 'mock-upstream', mockSpec)
const forwarderSpec: LeanForwarderSpec = { upstreamUrl: mock.info.url, connections: 4 }
const forwarder = await fleet.start<{ url: string }>('forwarder', 'lean-forwarder', forwarderSpec)

const post = (origin: string, body: string, headers: Record<string, string> = {}) =>
  request(`${origin}/v1/chat/completions`, { method: 'POST', headers: { ...OPENAI_HEADERS, ...headers }, body })

t.test("the forwarder answers with the upstream's status and body, unchanged", async (t) => {
  const direct = await post(mock.info.url, OPENAI_BODY)
  const forwarded = await post(forwarder.info.url, OPENAI_BODY)
  t.equal(forwarded.statusCode, 200)
  const directBody = JSON.parse(await direct.body.text()) as { choices: unknown }
  const forwardedBody = JSON.parse(await forwarded.body.text()) as { choices: unknown }
  t.same(forwardedBody.choices, directBody.choices)
  t.equal(forwarded.headers['content-type'], 'application/json')
})

t.test('hop-by-hop headers are not passed on either way; end-to-end ones are', async (t) => {
  let seen: IncomingHttpHeaders = {}
  const upstream = createServer((req, res) => {
    seen = req.headers
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'proxy-authenticate': 'Basic', 'x-upstream': 'yes' })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => upstream.close())
  const spec: LeanForwarderSpec = { upstreamUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, connections: 1 }
  const headerForwarder = await fleet.start<{ url: string }>('header forwarder', 'lean-forwarder', spec)
  const answer = await post(headerForwarder.info.url, OPENAI_BODY, { 'proxy-authorization': 'Basic eA==', te: 'trailers', 'x-trace': 'abc' })
  await answer.body.dump()
  t.equal(seen['x-trace'], 'abc')
  t.equal(seen.authorization, OPENAI_HEADERS.authorization)
  t.equal(seen['proxy-authorization'], undefined)
  t.equal(seen.te, undefined)
  t.equal(answer.headers['x-upstream'], 'yes')
  t.equal(answer.headers['proxy-authenticate'], undefined)
})

t.test('a stream is relayed event by event, not buffered until it ends', async (t) => {
  const agent = new Agent()
  t.teardown(() => agent.close())
  const target = {
    load: { url: `${forwarder.info.url}/v1/chat/completions`, method: 'POST' as const, headers: OPENAI_HEADERS, body: OPENAI_STREAM_BODY },
    endMarker: '[DONE]',
  }
  await sendOnce(agent, target)
  const sample = await sendOnce(agent, target)
  t.ok(sample.isComplete, sample.problem ?? 'finished with [DONE]')
  // Three events 100 ms apart after the first: the first byte arrives well before the last,
  // with room for a busy machine.
  t.ok(sample.totalMs - sample.ttfbMs >= 150, `first byte ${sample.ttfbMs.toFixed(1)} ms, last ${sample.totalMs.toFixed(1)} ms`)
})

t.test('the mock counts the requests it answered', async (t) => {
  const before = JSON.parse(await (await request(`${mock.info.url}/stats`)).body.text()) as { requests: number }
  await (await post(forwarder.info.url, OPENAI_BODY)).body.dump()
  const after = JSON.parse(await (await request(`${mock.info.url}/stats`)).body.text()) as { requests: number }
  t.equal(after.requests - before.requests, 1)
})

t.test('an upstream that cannot be reached is a 502', async (t) => {
  const orphan = await fleet.start<{ url: string }>('orphan forwarder', 'lean-forwarder', {
    upstreamUrl: 'http://127.0.0.1:9',
    connections: 1,
  } satisfies LeanForwarderSpec)
  const answer = await post(orphan.info.url, OPENAI_BODY)
  t.equal(answer.statusCode, 502)
  t.match(JSON.parse(await answer.body.text()), { error: { message: /lean forwarder/ } })
})
