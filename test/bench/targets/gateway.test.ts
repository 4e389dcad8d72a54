import t from 'tap'
import { request } from 'undici'
import { completeHeaders, COMPLETE_BODY, MODEL } from '../../../bench/payload.ts'
import { Fleet } from '../../../bench/processes.ts'
import type { GatewayInfo, GatewaySpec } from '../../../bench/targets/gateway.ts'
import type { MockSpec } from '../../../bench/targets/mock-upstream.ts'

const fleet = new Fleet()
t.teardown(() => fleet.stopAll())

const mockSpec: MockSpec = { latencyMs: 0, chunks: 3, chunkDelayMs: 0 }
const mock = await fleet.start<{ url: string }>('mock', 'mock-upstream', mockSpec)

const complete = async (gateway: GatewayInfo, headers: Record<string, string>) => {
  const answer = await request(`${gateway.url}/api/ai/complete`, { method: 'POST', headers, body: COMPLETE_BODY })
  return { status: answer.statusCode, headers: answer.headers, body: await answer.body.text() }
}

t.test('the core-only gateway runs the router alone: the mock answers, and no key is asked for', async (t) => {
  const spec: GatewaySpec = { upstreamUrl: mock.info.url, plugins: ['router'] }
  const gateway = (await fleet.start<GatewayInfo>('core only', 'gateway', spec)).info
  const { 'x-api-key': _key, ...keyless } = completeHeaders(gateway.key, {})
  const answer = await complete(gateway, keyless)
  t.equal(answer.status, 200, answer.body)
  t.equal(answer.headers['x-gateway-model'], `openai/${MODEL}`)
})

t.test('the plain gateway runs every plugin: a request without a key is refused', async (t) => {
  const gateway = (await fleet.start<GatewayInfo>('plain', 'gateway', { upstreamUrl: mock.info.url } satisfies GatewaySpec)).info
  const { 'x-api-key': _key, ...keyless } = completeHeaders(gateway.key, {})
  t.equal((await complete(gateway, keyless)).status, 401)
  const answer = await complete(gateway, completeHeaders(gateway.key, { cacheControl: 'no-cache' }))
  t.equal(answer.status, 200, answer.body)
  t.equal(answer.headers['x-cache-status'], 'MISS')
})
