// SSRF protection through the real gateway with WEBHOOKS_ALLOW_PRIVATE_TARGETS and
// WEBHOOKS_ALLOW_HTTP off. Names are answered by a stand-in resolver, so no query leaves the
// machine, and every refusal happens before any connection is made.
import t, { type Test } from 'tap'
import { startReceiver } from './fixtures/receiver.ts'
import { register, startWebhookGateway, type WebhookGateway } from './fixtures/gateway.ts'

const SECRET = 'a-secret-of-sixteen-plus'

/** A resolver whose answers the test sets; unknown names do not resolve. */
function playDns(answers: Record<string, string[]>) {
  return async (hostname: string): Promise<readonly string[]> => {
    const found = answers[hostname]
    if (found === undefined) throw Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' })
    return found
  }
}

async function strictGateway(t: Test, answers: Record<string, string[]> = {}, allowHttp: '0' | '1' = '0'): Promise<WebhookGateway> {
  return startWebhookGateway(t, { allowPrivateTargets: '0', allowHttp, plugin: { resolve: playDns(answers) } })
}

t.test('private, loopback, link-local, mapped and encoded targets are refused at registration with 400', async (t) => {
  const gw = await strictGateway(t, { localhost: ['127.0.0.1', '::1'], 'internal.example': ['10.1.2.3'], 'mixed.example': ['93.184.216.34', '192.168.0.5'] })
  const refused: Array<[url: string, reason: RegExp]> = [
    ['https://10.0.0.1/hooks', /private address \(10\.0\.0\.1\)/],
    ['https://172.16.5.4/hooks', /private/],
    ['https://192.168.1.10/hooks', /private/],
    ['https://127.0.0.1/hooks', /loopback address \(127\.0\.0\.1\)/],
    ['https://localhost/hooks', /localhost resolves to a loopback address/],
    ['https://[::1]/hooks', /loopback address \(::1\)/],
    ['https://169.254.169.254/latest/meta-data/', /link-local \(cloud metadata\)/],
    ['https://[fe80::1]/hooks', /link-local/],
    ['https://[fd00:ec2::254]/hooks', /unique-local/],
    ['https://100.64.0.1/hooks', /carrier-grade NAT/],
    ['https://[::ffff:127.0.0.1]/hooks', /loopback address \(::ffff:7f00:1\)/],
    ['https://[::ffff:169.254.169.254]/hooks', /metadata/],
    ['https://2130706433/hooks', /loopback address \(127\.0\.0\.1\)/],
    ['https://0x7f000001/hooks', /loopback/],
    ['https://0177.0.0.1/hooks', /loopback/],
    ['https://2852039166/hooks', /metadata/],
    ['https://0.0.0.0/hooks', /this-network/],
    ['https://internal.example/hooks', /internal\.example resolves to a private address \(10\.1\.2\.3\)/],
    ['https://mixed.example/hooks', /private address \(192\.168\.0\.5\)/],
  ]
  for (const [url, reason] of refused) {
    const res = await gw.api('/api/webhooks', { body: { url, events: ['*'], secret: SECRET } })
    t.equal(res.status, 400, url)
    t.match(res.body.error, reason, url)
    t.match(res.body.message, /WEBHOOKS_ALLOW_PRIVATE_TARGETS/, `${url}: the message names the switch`)
  }
  t.same((await gw.api('/api/webhooks')).body.webhooks, [], 'nothing was registered')
})

t.test('http targets are refused unless WEBHOOKS_ALLOW_HTTP is set, and https public targets are accepted', async (t) => {
  const answers = { 'hooks.example': ['93.184.216.34'] }
  const gw = await strictGateway(t, answers)
  const http = await gw.api('/api/webhooks', { body: { url: 'http://hooks.example/in', events: ['*'], secret: SECRET } })
  t.equal(http.status, 400)
  t.equal(http.body.error, 'Invalid request: url must use https')
  t.match(http.body.message, /WEBHOOKS_ALLOW_HTTP/)
  const https = await gw.api('/api/webhooks', { body: { url: 'https://hooks.example/in', events: ['*'], secret: SECRET } })
  t.equal(https.status, 201, 'a public https target registers (registration resolves the name; it connects to nothing)')
  // Should anything try to deliver now, it would be refused instead of leaving the machine.
  answers['hooks.example'] = ['10.0.0.1']
})

t.test("changing a webhook's url to a private target is refused too", async (t) => {
  const answers = { 'hooks.example': ['93.184.216.34'] }
  const gw = await strictGateway(t, answers)
  const id = await register(gw, 'https://hooks.example/in')
  answers['hooks.example'] = ['10.0.0.1']
  const res = await gw.api(`/api/webhooks/${id}`, { method: 'PATCH', body: { url: 'https://[::ffff:10.0.0.1]/in' } })
  t.equal(res.status, 400)
  t.match(res.body.error, /private/)
  t.equal((await gw.api('/api/webhooks')).body.webhooks[0].url, 'https://hooks.example/in', 'the url is unchanged')
})

t.test('a name that turns private after registration (DNS rebinding) is refused at connect time and nothing is sent', async (t) => {
  const receiver = await startReceiver(t)
  const port = new URL(receiver.url).port
  const answers: Record<string, string[]> = { 'rebind.example': ['93.184.216.34'] }
  const gw = await strictGateway(t, answers, '1')
  const id = await register(gw, `http://rebind.example:${port}/hooks`)
  // From here on the name points at the receiver on loopback, which would accept the delivery.
  answers['rebind.example'] = ['127.0.0.1']
  const res = await gw.api('/api/webhooks/test', { body: { webhook_id: id, event_type: 'alert.created' } })
  t.equal(res.status, 200)
  t.equal(res.body.success, false)
  t.equal(res.body.delivery.error, 'refused: 127.0.0.1 is loopback')
  t.equal(res.body.delivery.response_code, null)
  t.equal(receiver.received.length, 0, 'the receiver got nothing')
})

t.test('a receiver that answers 302 to a private address gets a failed attempt, and the redirect is not followed', async (t) => {
  const inner = await startReceiver(t)
  const outer = await startReceiver(t, () => ({ status: 302, headers: { location: inner.url } }))
  const gw = await startWebhookGateway(t)
  const id = await register(gw, outer.url)
  const res = await gw.api('/api/webhooks/test', { body: { webhook_id: id, event_type: 'case.created' } })
  t.equal(res.body.success, false)
  t.equal(res.body.delivery.response_code, 302)
  t.equal(res.body.delivery.error, 'redirect not followed (HTTP 302)')
  t.equal(outer.received.length, 1)
  t.equal(inner.received.length, 0, 'the redirect target was never called')
})
