// An answer's headers reach Node in the one writeHead that sends them: none is set on the
// response beforehand, which would make Node validate and copy every header a second time. Each
// kind of answer still names its request in x-request-id.
import { ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { hello } from '../helpers/http.ts'
import { startMockedGateway } from '../helpers/mocked-gateway.ts'

/** Counts calls of ServerResponse#setHeader in this process (the gateway under test runs here). */
function countSetHeader(t: Test) {
  const original = ServerResponse.prototype.setHeader
  const counted = { calls: 0 }
  ServerResponse.prototype.setHeader = function (this: ServerResponse, ...args: Parameters<typeof original>) {
    counted.calls++
    return original.apply(this, args)
  } as typeof original
  t.teardown(() => {
    ServerResponse.prototype.setHeader = original
  })
  return counted
}

t.test('a JSON answer, a stream and an error set no header ahead of writeHead, and each names its request', async (t) => {
  const { url, key } = await startMockedGateway(t)
  const counted = countSetHeader(t)
  const headers = { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'client-chosen-1' }

  const json = await request(`${url}/api/ai/complete`, { method: 'POST', headers, body: JSON.stringify(hello) })
  await json.body.json()
  t.equal(json.statusCode, 200)
  t.equal(json.headers['x-request-id'], 'client-chosen-1')

  const stream = await request(`${url}/api/ai/chat`, { method: 'POST', headers, body: JSON.stringify(hello) })
  await stream.body.text()
  t.equal(stream.statusCode, 200)
  t.equal(stream.headers['x-request-id'], 'client-chosen-1')

  const refused = await request(`${url}/api/ai/complete`, { method: 'POST', headers: { ...headers, 'x-api-key': 'sk_not_a_key' }, body: JSON.stringify(hello) })
  await refused.body.json()
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['x-request-id'], 'client-chosen-1')

  const missing = await request(`${url}/no/such/route`)
  await missing.body.json()
  t.equal(missing.statusCode, 404)
  t.match(missing.headers['x-request-id'], /\S/, 'an answer given before any context names its request too')

  t.equal(counted.calls, 0, 'no header set on a response before its writeHead')
})
