import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { call } from '../../helpers/http.ts'
import { captureLog } from '../../helpers/log-capture.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.ts'

const OPENAI_KEY = 'sk-gateway-openai-credential'
const ANTHROPIC_KEY = 'sk-ant-gateway-credential'

async function setup(t: Test, project: Parameters<typeof seedProject>[1] = {}, overrides: Record<string, unknown> = {}) {
  const upstream = await startProviderUpstream(t)
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, project, [
    { type: 'sk', env: 'prod' },
    { type: 'sk', env: 'dev' },
  ])
  const gw = await startTestGateway(t, {
    dataDir,
    env: {
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: `${upstream.url}/prefix/v1`,
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: `${upstream.url}/anthropic`,
    },
    overrides,
  })
  return { upstream, url: gw.url, projectId: seeded.projectId, key: seeded.keys[0]!.key, devKey: seeded.keys[1]!.key }
}

/** /api/usage once the entry of the last answer is committed (it is written as the answer ends). */
async function usageWhen(url: string, key: string, projectId: string, ready: (body: any) => boolean): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const usage = await call(`${url}/api/usage?projectId=${projectId}`, { key })
    if (ready(usage.body)) return usage.body
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('the usage never showed the request')
}

function lastTo(upstream: ProviderUpstream, path: string) {
  return upstream.received.filter((r) => r.path === path).at(-1)
}

t.test("an embeddings call is forwarded with the gateway's credential, metered and charged", async (t) => {
  const { upstream, url, projectId, key } = await setup(t)
  // Bytes enough for the 8,000 tokens the provider reports: its hold is bounded by them.
  const input = 'hello '.repeat(1500)
  const res = await call(`${url}/api/providers/openai/v1/embeddings`, {
    headers: {
      'x-api-key': key,
      authorization: 'Bearer sk-client-own-openai-key',
      'api-key': 'client-azure-key',
      'openai-organization': 'org-client',
      'accept-encoding': 'gzip',
    },
    body: { model: 'text-embedding-3-small', input },
  })
  t.equal(res.status, 200)
  t.equal(res.body.model, 'text-embedding-3-small', "the provider's body as it is")
  t.match(res.headers['x-request-id'], /\S/)
  t.not(res.headers['x-request-id'], 'req_provider_1', "the gateway's request id, not the provider's")
  t.equal(res.headers['x-upstream-request-id'], 'req_provider_1')
  t.equal(res.headers['set-cookie'], undefined, "the provider's cookies stay with the gateway")
  const got = lastTo(upstream, '/prefix/v1/embeddings')
  t.ok(got, 'the base URL ending in /v1 is not given a second /v1')
  t.equal(got!.headers.authorization, `Bearer ${OPENAI_KEY}`, "the gateway's credential, not the client's own provider key")
  t.equal(got!.headers['x-api-key'], undefined, 'the gateway key is not forwarded')
  t.equal(got!.headers['api-key'], undefined)
  t.equal(got!.headers['openai-organization'], undefined)
  t.equal(got!.headers['accept-encoding'], 'identity', 'the answer is asked for uncompressed, to read its usage')
  t.same(JSON.parse(got!.body), { model: 'text-embedding-3-small', input }, 'the body as the client sent it')
  t.notMatch(JSON.stringify(got!.headers), key, 'the gateway key never reaches the provider')
  const usage = await usageWhen(url, key, projectId, (body) => body.models?.['text-embedding-3-small'] !== undefined)
  t.same(usage.models['text-embedding-3-small'], { requests: 1, tokens: 8000, cost: 0.00016 }, '8,000 tokens at $0.02 a million')
  t.equal(usage.budget.used, 0.00016)
  t.same(usage.cache, { hits: 0, misses: 0, hitRate: 0 }, 'a forwarded request is no cache lookup')
})

t.test('a streamed call passes event by event and is metered from its usage event', async (t) => {
  const { url, projectId, key } = await setup(t)
  const res = await request(`${url}/api/providers/openai/v1/responses`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', stream: true }),
  })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /text\/event-stream/)
  const text = await res.body.text()
  t.match(text, /response\.completed/)
  const usage = await usageWhen(url, key, projectId, (body) => body.models?.['gpt-4o-mini-2024-07-18'] !== undefined)
  // A dated snapshot is priced as its model: 12,000 × $0.15 + 3,000 × $0.60 a million.
  t.same(usage.models['gpt-4o-mini-2024-07-18'], { requests: 1, tokens: 15000, cost: 0.0036 })
})

t.test("Anthropic gets its x-api-key and the client's anthropic-version; the query passes on", async (t) => {
  const { upstream, url, key } = await setup(t)
  const res = await call(`${url}/api/providers/openai/v1/files?limit=2&after=file_1`, { headers: { authorization: `Bearer ${key}` } })
  t.equal(res.status, 200)
  t.equal(res.body.query, 'limit=2&after=file_1')
  await call(`${url}/api/providers/anthropic/v1/mystery`, { headers: { authorization: `Bearer ${key}`, 'anthropic-version': '2024-01-01' }, body: {} })
  const got = lastTo(upstream, '/anthropic/v1/mystery')!
  t.equal(got.headers['x-api-key'], ANTHROPIC_KEY)
  t.equal(got.headers.authorization, undefined, "the client's bearer (its gateway key) is not forwarded")
  t.equal(got.headers['anthropic-version'], '2024-01-01')
  await call(`${url}/api/providers/anthropic/v1/mystery`, { key, body: {} })
  t.equal(lastTo(upstream, '/anthropic/v1/mystery')!.headers['anthropic-version'], '2023-06-01', 'the default version when the client sends none')
})

t.test('a request whose cost cannot be known is recorded as unknown, not free, and its hold given back', async (t) => {
  // Each of these holds the default ceiling, $1: the whole budget, so each passes only once the one before gave it back.
  const { url, projectId, key } = await setup(t, { budgetDollars: 1 })
  t.equal((await call(`${url}/api/providers/openai/v1/moderations`, { key, body: { input: 'x' } })).status, 200)
  t.equal((await call(`${url}/api/providers/openai/v1/mystery`, { key, body: {} })).status, 200)
  const usage = await usageWhen(url, key, projectId, (body) => body.totals?.unpriced === 2)
  t.same(usage.models['omni-moderation-latest'], { requests: 1, tokens: 0, cost: 0, unpriced: 1 }, 'no usage in the answer')
  t.same(usage.models['mystery-model'], { requests: 1, tokens: 10, cost: 0, unpriced: 1 }, 'a model without a price')
  const metrics = await call(`${url}/metrics`)
  t.match(metrics.body, /tollgate_passthrough_unpriced_total\{provider="openai",reason="no_usage"\} 1/)
  t.match(metrics.body, /tollgate_passthrough_unpriced_total\{provider="openai",reason="no_price"\} 1/)
})

t.test('the gateway key is required, and rate limits and budgets hold', async (t) => {
  const plans = {
    free: { perMinute: 1, burst: 1, perDay: null },
    pro: { perMinute: 1, burst: 1, perDay: null },
    startup: { perMinute: 1, burst: 1, perDay: null },
    growth: { perMinute: 1, burst: 1, perDay: null },
    enterprise: { perMinute: null, burst: null, perDay: null },
  }
  const { upstream, url, key } = await setup(t, { plan: 'free', budgetDollars: 1 }, { plugins: { 'rate-limit': { plans } } })
  const missing = await call(`${url}/api/providers/openai/v1/embeddings`, { body: {} })
  t.equal(missing.status, 401)
  t.equal(missing.body.error, 'Missing API key')
  const provider = await call(`${url}/api/providers/openai/v1/embeddings`, { headers: { authorization: 'Bearer sk-proj-client-own-openai-key' }, body: {} })
  t.equal(provider.status, 401, 'a provider key is no gateway key')
  t.equal((await call(`${url}/api/providers/openai/v1/embeddings`, { key, body: {} })).status, 200)
  const limited = await call(`${url}/api/providers/openai/v1/embeddings`, { key, body: {} })
  t.equal(limited.status, 429)
  t.match(limited.headers['retry-after'], /^\d+$/)
  t.equal(upstream.received.length, 1, 'refused requests never reach the provider')
})

t.test("each request holds its worst case before it is forwarded, or its route's ceiling; the charge stays within the hold", async (t) => {
  const { upstream, url, projectId, key } = await setup(
    t,
    { budgetDollars: 0.01 },
    {
      plugins: { passthrough: { unboundedHoldDollars: 0.009, unboundedHoldByPath: { 'openai/v1/files': 0 } } },
    },
  )
  const chat = (maxTokens: number) => ({ model: 'gpt-4o', max_tokens: maxTokens, messages: [{ role: 'user', content: 'Hi' }] })
  // gpt-4o: 2.5 micro-dollars a prompt token (every byte of the body may be one), 10 an output token.
  const holdOf = (body: unknown, maxTokens: number) => Math.ceil(Buffer.byteLength(JSON.stringify(body)) * 2.5 + maxTokens * 10)
  const tooMuch = await call(`${url}/api/providers/openai/v1/chat/completions`, { key, body: chat(2000) })
  t.equal(tooMuch.status, 402, '2,000 output tokens may cost $0.02, past the $0.01 budget')
  t.same(Object.keys(tooMuch.body).sort(), ['code', 'error', 'message'])
  t.equal(tooMuch.body.error, 'Budget exceeded')
  t.match(tooMuch.body.message, /may cost up to \$0\.020\d+; the project has \$0\.010000 left/)
  t.equal(upstream.received.length, 0, 'nothing was forwarded')

  t.equal((await call(`${url}/api/providers/openai/v1/chat/completions`, { key, body: chat(100) })).status, 200)
  // The provider reports 1,000 prompt and 100 output tokens ($0.0035): more than this body can make.
  const held = holdOf(chat(100), 100)
  const usage = await usageWhen(url, key, projectId, (body) => body.budget?.used > 0)
  t.equal(usage.budget.used, held / 1e6, 'charged its hold, no more')
  t.equal(usage.budget.overage, (3500 - held) / 1e6, 'the rest recorded as overage')
  t.match((await call(`${url}/metrics`)).body, /tollgate_budget_overage_dollars_total\{provider="openai",model="gpt-4o-2024-08-06"\} 0\.00/)

  const unbounded = await call(`${url}/api/providers/openai/v1/moderations`, { key, body: { input: 'x' } })
  t.equal(unbounded.status, 402, 'no model named: the $0.009 ceiling, more than is left')
  const upload = await call(`${url}/api/providers/openai/v1/files`, {
    key,
    raw: Buffer.from('file bytes'),
    headers: { 'content-type': 'application/octet-stream' },
  })
  t.equal(upload.status, 200, "an upload under the files path holds that path's own ceiling, 0")
  t.equal(
    (await call(`${url}/api/providers/openai/v1/batches`, { key })).status,
    404,
    'a GET generates no tokens and holds nothing: forwarded, and the provider answered',
  )
  t.same(
    upstream.received.map((r) => r.path),
    ['/prefix/v1/chat/completions', '/prefix/v1/files', '/prefix/v1/batches'],
  )
})

t.test('a client that leaves mid-stream aborts the upstream and is metered with what was seen', async (t) => {
  const { upstream, url, projectId, key } = await setup(t)
  const controller = new AbortController()
  const res = await request(`${url}/api/providers/anthropic/v1/messages/hang`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: '{}',
    signal: controller.signal,
  })
  t.equal(res.statusCode, 200)
  for await (const chunk of res.body) {
    if (String(chunk).includes('message_start')) break
  }
  controller.abort()
  await upstream.hangingClosed
  t.pass('the provider saw its client go away')
  const usage = await usageWhen(url, key, projectId, (body) => body.models?.['claude-3-haiku-20240307'] !== undefined)
  // 4,000 input tokens and 1 output token of claude-3-haiku at $0.25 / $1.25 a million.
  t.same(usage.models['claude-3-haiku-20240307'], { requests: 1, tokens: 4001, cost: 0.001001 })
})

t.test('unknown providers, unconfigured providers, development keys and hostile paths', async (t) => {
  const { upstream, url, key, devKey } = await setup(t)
  const unknown = await call(`${url}/api/providers/cohere/v1/embed`, { key, body: {} })
  t.equal(unknown.status, 404)
  const mistral = await call(`${url}/api/providers/mistral/v1/embeddings`, { key, body: {} })
  t.equal(mistral.status, 503)
  t.equal(mistral.body.code, 'provider_not_configured')
  t.match(mistral.body.message, /MISTRAL_API_KEY/)
  const dev = await call(`${url}/api/providers/openai/v1/embeddings`, { key: devKey, body: {} })
  t.equal(dev.status, 403)
  for (const path of ['v1/files%2F..%2F..%2Fadmin', 'v1/files%2f..', 'v1/a%5C..%5Cb', 'v1/a%2Eb', 'v1//evil', 'v1/x%00']) {
    const res = await call(`${url}/api/providers/openai/${path}`, { key })
    t.equal(res.status, 400, path)
  }
  // The request target's dot segments (encoded ones too) are resolved before routing: they end
  // outside the pass-through (404) or below the provider's base path, never above it.
  for (const path of ['v1/../../../admin', 'v1/%2e%2e/%2e%2e/%2e%2e/admin', 'v1/files/%2E%2E/x', 'v1/./../../x']) {
    const res = await call(`${url}/api/providers/openai/${path}`, { key })
    t.not(res.status, 200, path)
  }
  t.ok(upstream.received.length > 0)
  t.ok(
    upstream.received.every((r) => r.path.startsWith('/prefix/v1/')),
    "nothing left the provider's base path",
  )
})

t.test('the body limit holds for streamed bodies of any type', async (t) => {
  const { upstream, url, key } = await setup(t, {}, { bodyLimitBytes: 1024 })
  const declared = await call(`${url}/api/providers/openai/v1/files`, {
    key,
    raw: 'x'.repeat(2048),
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
  })
  t.equal(declared.status, 413)
  const chunked = await request(`${url}/api/providers/openai/v1/files`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/octet-stream' },
    body: Readable.from(
      (function* () {
        for (let i = 0; i < 4; i++) yield Buffer.alloc(512, 'y')
      })(),
    ),
  })
  t.equal(chunked.statusCode, 413)
  await chunked.body.dump()
  const json = await request(`${url}/api/providers/openai/v1/embeddings`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: Readable.from(
      (function* () {
        yield '{"input":"'
        for (let i = 0; i < 4; i++) yield 'z'.repeat(512)
        yield '"}'
      })(),
    ),
  })
  t.equal(json.statusCode, 413, 'a JSON body, read before it is forwarded, too')
  await json.body.dump()
  const small = await call(`${url}/api/providers/openai/v1/files`, { key, raw: 'small', headers: { 'content-type': 'text/plain' } })
  t.equal(small.status, 200, 'a body of another type within the limit passes')
  t.equal(lastTo(upstream, '/prefix/v1/files')!.body, 'small')
  t.notOk(lastTo(upstream, '/prefix/v1/embeddings'), 'nothing past the limit was forwarded')
})

t.test("one access log line without content, request metrics, 502 and 504 from the provider's failures", async (t) => {
  const upstream = await startProviderUpstream(t)
  // A port nothing listens on any more: the provider cannot be reached.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
  await new Promise((resolve) => probe.close(resolve))
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, {}, [{ type: 'sk', env: 'stg' }])
  const key = seeded.keys[0]!.key
  const log = captureLog()
  const gw = await startTestGateway(t, {
    dataDir,
    env: {
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: upstream.url,
      MISTRAL_API_KEY: 'mistral-gateway-key',
      MISTRAL_BASE_URL: closedUrl,
    },
    overrides: { logLevel: 'info', plugins: { passthrough: { proxyTimeoutMs: 300 } } },
    logDestination: log.destination,
  })
  const secret = 'a prompt that must never be logged'
  t.equal((await call(`${gw.url}/api/providers/openai/v1/embeddings`, { key, body: { input: secret } })).status, 200)
  const lines = log.lines().filter((line) => line.msg === 'request')
  t.equal(lines.length, 1, 'one access log line')
  t.match(lines[0], { route: 'passthrough_openai', status: 200, outcome: 'ok' })
  t.notMatch(log.text(), secret)
  const metrics = await call(`${gw.url}/metrics`)
  t.match(metrics.body, /tollgate_requests_total\{route="passthrough_openai",status_class="2xx",reason="ok"\} 1/)

  const timedOut = await call(`${gw.url}/api/providers/openai/v1/never`, { key, body: {} })
  t.equal(timedOut.status, 504)
  t.equal(timedOut.body.error, 'Upstream timeout')
  const unreachable = await call(`${gw.url}/api/providers/mistral/v1/embeddings`, { key, body: {} })
  t.equal(unreachable.status, 502)
  t.equal(unreachable.body.error, 'Upstream error')
})

t.test('x-gateway-tags count on the pass-through too, and a hostile one is a 400 before anything is forwarded', async (t) => {
  const { upstream, url, projectId, key } = await setup(t)
  const embed = (tags: string) =>
    call(`${url}/api/providers/openai/v1/embeddings`, {
      headers: { 'x-api-key': key, 'x-gateway-tags': tags },
      body: { model: 'text-embedding-3-small', input: 'hello '.repeat(1500) },
    })
  t.equal((await embed('search, eu')).status, 200)
  const refused = await embed('<script>')
  t.equal(refused.status, 400)
  t.match(refused.body.message, /x-gateway-tags/)
  t.equal(upstream.received.filter((r) => r.path === '/prefix/v1/embeddings').length, 1, 'the refused request never reached the provider')
  await usageWhen(url, key, projectId, (body) => body.models?.['text-embedding-3-small'] !== undefined)
  const byTag = await call(`${url}/api/usage?projectId=${projectId}&by=tag`, { key })
  t.same(byTag.body.breakdown, [
    { tag: 'eu', requests: 1, tokens: 8000, costDollars: 0.00016 },
    { tag: 'search', requests: 1, tokens: 8000, costDollars: 0.00016 },
  ])
})
