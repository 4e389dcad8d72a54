// Every error row of the spec's gateway table (and the gateway's additions), through the real
// server: status and exact body.
import t from 'tap'
import { z } from 'zod'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { builtinPlugins } from '../../plugins/index.ts'
import { call, hello } from '../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

t.test('a request without a key gets 401 Missing API key', async (t) => {
  const { url } = await startTestGateway(t)
  const res = await call(`${url}/api/ai/complete`, { body: hello })
  t.equal(res.status, 401)
  t.same(res.body, { error: 'Missing API key', message: 'Send the key in the X-API-Key header (or Authorization: Bearer).', code: 'missing_api_key' })
})

t.test('an unknown, malformed or deactivated key gets 401 Invalid or inactive API key', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const expected = { error: 'Invalid or inactive API key', message: 'The API key is unknown, deleted or deactivated.', code: 'invalid_api_key' }
  const real = seeded.keys[0]!.key
  // Same format and checksum rules, but never issued by this store.
  const forged = `sk_prod_${'A'.repeat(32)}`
  for (const key of [`${forged}AAAAAA`, 'sk_short', real.slice(0, -1) + (real.endsWith('a') ? 'b' : 'a'), 'x'.repeat(5000)]) {
    const res = await call(`${url}/api/ai/complete`, { body: hello, key })
    t.equal(res.status, 401, `key of length ${key.length}`)
    t.same(res.body, expected)
  }
  const bearer = await call(`${url}/api/ai/complete`, { body: hello, headers: { authorization: 'Bearer sk_nope' } })
  t.equal(bearer.status, 401)
  t.same(bearer.body, expected)
})

t.test('a project key on an AI endpoint gets 403 API key lacks required permissions', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, {}, [{ type: 'pk', env: 'prod' }])
  const { url } = await startTestGateway(t, { dataDir })
  const res = await call(`${url}/api/ai/complete`, { body: hello, key: seeded.keys[0]!.key })
  t.equal(res.status, 403)
  t.same(res.body, {
    error: 'API key lacks required permissions',
    message: 'This endpoint takes sk_ keys; this is a pk_ key.',
    code: 'insufficient_permissions',
  })
})

t.test("a key reading another project's usage gets 403", async (t) => {
  const dataDir = freshDataDir(t)
  const mine = await seedProject(dataDir)
  const theirs = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const res = await call(`${url}/api/usage?projectId=${theirs.projectId}`, { key: mine.keys[0]!.key })
  t.equal(res.status, 403)
  t.same(res.body, { error: 'API key lacks required permissions', message: 'This key belongs to another project.', code: 'insufficient_permissions' })
})

t.test('past the burst a key gets 429 Rate limit exceeded with retry-after and rate-limit headers', async (t) => {
  const dataDir = freshDataDir(t)
  // Free plan, development key: a tenth of 10/min with a burst of 20 → 1/min, burst 2.
  const seeded = await seedProject(dataDir, { plan: 'free' }, [{ type: 'sk', env: 'dev' }])
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  for (let i = 0; i < 2; i++) t.equal((await call(`${url}/api/health`, { key })).status, 200)
  const res = await call(`${url}/api/health`, { key })
  t.equal(res.status, 429)
  t.same(res.body, { error: 'Rate limit exceeded', message: 'This key may send 1 requests per minute (bursts of 2); retry in 60s.', code: 'rate_limited' })
  t.equal(res.headers['retry-after'], '60')
  t.equal(res.headers['x-ratelimit-limit'], '2')
  t.equal(res.headers['x-ratelimit-remaining'], '0')
  t.ok(Number(res.headers['x-ratelimit-reset']) > 0)
})

t.test('a request whose worst case exceeds the budget gets 402 Budget exceeded', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, { budgetDollars: 0.0001 })
  const { url } = await startTestGateway(t, { dataDir })
  const res = await call(`${url}/api/ai/complete`, { body: { ...hello, model: 'gpt-4o', maxTokens: 1000 }, key: seeded.keys[0]!.key })
  t.equal(res.status, 402)
  t.equal(res.body.error, 'Budget exceeded')
  t.equal(res.body.code, 'budget_exceeded')
  t.match(res.body.message, /may cost up to \$0\.010\d+; the project has \$0\.000100 left of its \$0\.0001 monthly budget/)
})

t.test('an internal failure gets 500 with its text in message, and the gateway keeps serving', async (t) => {
  const failing: GatewayPlugin = {
    name: 'failing-test-plugin',
    order: 150,
    gates: ['ai'],
    schema: z.object({}),
    setup: () => ({
      onRequest(ctx) {
        if (ctx.headers['x-fail'] !== undefined) throw new Error('disk on fire (internal detail)')
      },
    }),
  }
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir, plugins: [...builtinPlugins, failing] })
  const key = seeded.keys[0]!.key
  const res = await call(`${url}/api/ai/complete`, { body: hello, key, headers: { 'x-fail': '1' } })
  t.equal(res.status, 500)
  t.same(res.body, { error: 'Internal server error', message: 'The gateway failed to handle the request; it has been logged.', code: 'internal_error' })
  t.notMatch(JSON.stringify(res.body), /disk on fire/, 'internal detail stays out of the body')
  t.equal((await call(`${url}/api/ai/complete`, { body: hello, key })).status, 200)
})

t.test('unknown paths, wrong methods, non-JSON bodies and oversize bodies get clear 4xx answers', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir, overrides: { bodyLimitBytes: 4096 } })
  const key = seeded.keys[0]!.key

  const missing = await call(`${url}/api/nope`, { key })
  t.equal(missing.status, 404)
  t.same(missing.body, { error: 'Not found', message: 'No endpoint at GET /api/nope.', code: 'not_found' })
  // A target the URL parser rejects once took the process down.
  const unparsable = await call(`${url}//`, { key })
  t.equal(unparsable.status, 404)
  t.same(unparsable.body, { error: 'Not found', message: 'No endpoint at GET //.', code: 'not_found' })

  const wrongMethod = await call(`${url}/api/ai/complete`, { key })
  t.equal(wrongMethod.status, 405)
  t.equal(wrongMethod.headers.allow, 'POST')
  t.same(wrongMethod.body, { error: 'Method not allowed', message: 'Use POST on this path.', code: 'method_not_allowed' })

  const form = await call(`${url}/api/ai/complete`, { key, raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(form.status, 415)
  t.same(form.body, { error: 'Unsupported media type', message: 'Send the body as Content-Type: application/json.', code: 'unsupported_media_type' })

  const huge = await call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content: 'x'.repeat(10_000) }] } })
  t.equal(huge.status, 413)
  t.same(huge.body, { error: 'Request body too large', message: 'The body exceeds the limit of 4096 bytes.', code: 'payload_too_large' })
})
