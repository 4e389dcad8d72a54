// The core's own endpoints and the built-in local provider, end to end.
import t from 'tap'
import { request } from 'undici'
import { call, hello, parseSse } from '../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

t.test("health reports the key's project; healthz and readyz need no key", async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, {}, [{ type: 'pk', env: 'prod' }])
  const { url } = await startTestGateway(t, { dataDir })
  const health = await call(`${url}/api/health`, { key: seeded.keys[0]!.key })
  t.equal(health.status, 200)
  t.same(health.body, { status: 'ok', authenticated: true, project_id: seeded.projectId })
  t.same((await call(`${url}/healthz`)).body, { status: 'ok' })
  t.same((await call(`${url}/readyz`)).body, { status: 'ready', simulated: ['openai', 'anthropic', 'mistral'] })
  t.equal((await call(`${url}/api/health`)).status, 401)
})

t.test('the local provider answers complete deterministically and within maxTokens', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  const body = { messages: [{ role: 'user', content: 'Explain rate limits in a few sentences please' }], maxTokens: 12, temperature: 0 }
  const first = await call(`${url}/api/ai/complete`, { key, body })
  const second = await call(`${url}/api/ai/complete`, { key, body })
  t.equal(first.status, 200)
  t.equal(first.headers['x-gateway-model'], 'local/gpt-4o-mini')
  t.equal(first.body.text, second.body.text)
  t.ok(first.body.usage.completionTokens <= 12)
  t.match(first.body, { provider: 'local', model: 'gpt-4o-mini', cacheHit: false })
})

t.test('development keys are always served by the local provider, even when a provider key is set', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, {}, [{ type: 'sk', env: 'dev' }])
  const { url } = await startTestGateway(t, { dataDir, env: { OPENAI_API_KEY: 'would-be-used', OPENAI_BASE_URL: 'http://127.0.0.1:9' } })
  const res = await call(`${url}/api/ai/complete`, { key: seeded.keys[0]!.key, body: { ...hello, model: 'gpt-4o' } })
  t.equal(res.status, 200)
  t.equal(res.headers['x-gateway-model'], 'local/gpt-4o')
})

t.test('chat through the local provider streams several deltas whose text matches the done usage', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': seeded.keys[0]!.key, 'content-type': 'application/json' },
    body: JSON.stringify({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Describe a gateway in detail, with examples of what it does' },
      ],
      quality: 'frontier',
    }),
  })
  t.equal(res.headers['x-gateway-model'], 'local/gpt-4o')
  const events = parseSse(await res.body.text())
  t.ok(events.filter((e) => e.event === 'delta').length >= 3)
  const done = events.at(-1)!
  t.equal(done.event, 'done')
  t.equal(done.data.usage.totalTokens, done.data.usage.promptTokens + done.data.usage.completionTokens)
  t.equal(res.trailers['x-gateway-completion-tokens'], String(done.data.usage.completionTokens))
})

t.test("a long history is trimmed to the model's context window and the answer says so", async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir, overrides: { bodyLimitBytes: 8 * 1024 * 1024 } })
  const old = 'word '.repeat(40_000)
  const messages = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: old },
    { role: 'assistant', content: old },
    { role: 'user', content: old },
    { role: 'assistant', content: old },
    { role: 'user', content: 'And now?' },
  ]
  const res = await call(`${url}/api/ai/complete`, { key: seeded.keys[0]!.key, body: { messages } })
  t.equal(res.status, 200)
  t.ok(Number(res.headers['x-gateway-context-trimmed']) >= 1, 'older messages were dropped')
  t.ok(Number(res.headers['x-gateway-prompt-tokens']) + 1000 <= 128_000)
})

t.test('/metrics exposes request counts by route and status class after traffic', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  const key = seeded.keys[0]!.key
  // no-store: both are answered by the model, not the cache.
  const noStore = { 'cache-control': 'no-store' }
  await call(`${url}/api/ai/complete`, { key, body: hello, headers: noStore })
  await call(`${url}/api/ai/complete`, { key, body: hello, headers: noStore })
  await call(`${url}/api/ai/complete`, { body: hello })
  const metrics = await call(`${url}/metrics`)
  t.equal(metrics.status, 200)
  t.match(metrics.headers['content-type'], /^text\/plain/)
  t.match(metrics.body, /tollgate_requests_total\{route="ai_complete",status_class="2xx",reason="ok"\} 2/)
  t.match(metrics.body, /tollgate_requests_total\{route="ai_complete",status_class="4xx",reason="client_error"\} 1/)
  t.match(metrics.body, /tollgate_request_duration_seconds_count\{route="ai_complete",status_class="2xx"\} 2/)
  t.match(metrics.body, /nodejs_eventloop_lag_p99_seconds/)
  t.notMatch(metrics.body, new RegExp(seeded.projectId), 'no project ids in labels')
})

t.test('/metrics can move to its own port', async (t) => {
  const { url, gateway } = await startTestGateway(t, { overrides: { metricsPort: 0 } })
  t.equal((await call(`${url}/metrics`)).status, 404)
  t.equal((await call(gateway.metricsUrl!)).status, 200)
})

t.test('closing the gateway lets an in-flight stream finish before the process stops', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url, gateway } = await startTestGateway(t, { dataDir, env: { LOCAL_CHUNK_DELAY_MS: '30' } })
  const res = await request(`${url}/api/ai/chat`, {
    method: 'POST',
    headers: { 'x-api-key': seeded.keys[0]!.key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  const closed = gateway.close()
  const events = parseSse(await res.body.text())
  await closed
  t.equal(events.at(-1)!.event, 'done', 'the stream completed')
})

t.test('/openapi.json documents every registered route with its body schema', async (t) => {
  const { url, gateway } = await startTestGateway(t)
  const doc = (await call(`${url}/openapi.json`)).body
  t.equal(doc.openapi, '3.1.0')
  const documented = new Set(
    Object.entries(doc.paths as Record<string, object>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)),
  )
  const registered = gateway.routes.filter((r) => r.documented).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
  t.same(
    registered.filter((r) => !documented.has(r)),
    [],
    'every route is documented',
  )
  t.equal(documented.size, registered.length, 'and nothing else')
  const operationIds = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) =>
    Object.values(ops).map((op) => op.operationId),
  )
  t.equal(new Set(operationIds).size, operationIds.length, 'operation ids are unique')
  t.notOk(
    Object.keys(doc.paths).some((path) => path.startsWith('/dashboard')),
    "the dashboard's files are not an API",
  )
  t.ok(doc.paths['/api/projects/{projectId}/compliance/violations'].get, "the members' project routes are")
  t.match(doc.paths['/api/ai/complete'].post.requestBody.content['application/json'].schema, {
    type: 'object',
    properties: { messages: { type: 'array' }, temperature: { maximum: 2 } },
  })
  const chatCompletions = doc.paths['/v1/chat/completions'].post
  t.match(chatCompletions.requestBody.content['application/json'].schema, {
    type: 'object',
    properties: { model: { type: 'string' }, messages: { type: 'array' }, tools: {} },
  })
  t.same(Object.keys(chatCompletions.responses[200].content), ['application/json', 'text/event-stream'], 'a dialect answers JSON or a stream')
  t.same(doc.components.responses.OpenAiError400.content['application/json'].schema, { $ref: '#/components/schemas/OpenAiError' })
  t.same(chatCompletions.responses[400], { $ref: '#/components/responses/OpenAiError400' }, "a dialect's errors take its own shape")
  t.match(doc.components.schemas.OpenAiError, { required: ['error'], properties: { error: { required: ['message', 'type', 'code', 'param'] } } })
  t.same(doc.paths['/v1/messages'].post.responses[400], { $ref: '#/components/responses/AnthropicError400' })
  t.match(doc.components.schemas.AnthropicError, { properties: { type: { const: 'error' } } })
  t.ok(doc.paths['/v1/messages/count_tokens'].post && doc.paths['/v1/models'].get && doc.paths['/v1/models/{id}'].get)
})
