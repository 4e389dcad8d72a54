// /openapi.json as a client generator reads it: Redocly's recommended rules pass without a warning,
// and the facts a generated client depends on are there (queries, statuses, security, answers).
import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { completionResultSchema, healthSchema } from '../../../proxy/http/core-answers.ts'
import { modelAnswer } from '../../../plugins/governor/routes/answers.ts'
import { usageAnswer } from '../../../plugins/metering/routes/usage.ts'
import { call } from '../../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..', '..')
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js')

// Loaded before Redocly: any connection it opens is reported and refused, so the lint is offline.
const OFFLINE = `data:text/javascript,${encodeURIComponent(`
import net from 'node:net'
net.Socket.prototype.connect = function () { process.stderr.write('NETWORK ATTEMPT\\n'); throw new Error('no network in this test') }
`)}`

type Json = Record<string, any>

/** Follows a local `$ref` to what it names. */
function resolve(doc: Json, node: Json): Json {
  if (typeof node.$ref !== 'string') return node
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json, part: string) => at[part.replaceAll('~1', '/').replaceAll('~0', '~')], doc)
}

function operations(doc: Json): Array<{ method: string; path: string; op: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
    Object.entries(ops as Json).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  )
}

// One gateway serves the document to every test that only reads it.
const { url, gateway } = await startTestGateway(t)
const served = await call(`${url}/openapi.json`)
const doc = served.body as Json

t.test('the document is served as JSON', async (t) => {
  t.equal(served.status, 200)
  t.match(served.headers['content-type'], /^application\/json/)
  t.equal(doc.openapi, '3.1.0')
})

t.test("Redocly's recommended rules find no error and no warning, offline", async (t) => {
  const dir = freshDataDir(t)
  const file = join(dir, 'openapi.json')
  writeFileSync(file, JSON.stringify(doc))
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }
  const args = ['--import', OFFLINE, REDOCLY, 'lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000', file]
  const { stdout, stderr } = await run(process.execPath, args, { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 }).catch(
    (err) => err as { stdout: string; stderr: string },
  )
  t.notMatch(stderr, /NETWORK ATTEMPT/, 'Redocly opened no connection')
  const report = JSON.parse(stdout) as {
    totals: { errors: number; warnings: number }
    problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>
  }
  t.same(
    report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`),
    [],
    'no problems',
  )
  t.same(report.totals, { errors: 0, warnings: 0, ignored: 0 })
})

t.test('every registered route is documented with its answer, or explicitly left out', async (t) => {
  const documented = new Set(operations(doc).map(({ method, path }) => `${method} ${path}`))
  const registered = gateway.routes.filter((r) => r.documented).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
  t.same(
    registered.filter((r) => !documented.has(r)),
    [],
    'every documented route is in the document',
  )
  t.equal(documented.size, registered.length, 'and nothing else')
  t.same(
    gateway.routes.filter((r) => r.documented && !r.described).map((r) => `${r.method} ${r.path}`),
    [],
    "a route declares its answer's schema (docs.response) or says documented: false",
  )
  for (const route of [
    'POST /v1/chat/completions',
    'GET /v1/models',
    'GET /v1/models/{id}',
    'POST /v1/messages',
    'POST /v1/messages/count_tokens',
    'POST /api/ai/chat',
    'POST /api/ai/complete',
    'GET /api/usage',
    'GET /api/health',
    'POST /api/auth/signup',
    'POST /api/auth/login',
    'POST /api/auth/magic-link',
    'POST /api/auth/refresh',
    'POST /api/ai/query',
    'POST /api/webhooks',
    'GET /api/webhooks',
    'PATCH /api/webhooks/{id}',
    'DELETE /api/webhooks/{id}',
    'POST /api/webhooks/test',
    'GET /api/projects/{projectId}/usage',
  ]) {
    t.ok(documented.has(route), `${route} is documented`)
  }
})

t.test('every operation has a success and an error answer with schemas, and declares its security', async (t) => {
  const schemes = new Set(Object.keys(doc.components.securitySchemes))
  // Reached before any credential exists: sign-up, login, the mailed links, token refresh.
  const keyless = /^\/api\/(auth\/(signup|login|magic-link|magic-link\/verify|refresh|verify)|orgs\/invitations\/accept)$/
  for (const { method, path, op } of operations(doc)) {
    const name = `${method} ${path}`
    const statuses = Object.keys(op.responses)
    const success = statuses.find((s) => s.startsWith('2'))
    t.ok(success, `${name} has a success`)
    const content = resolve(doc, op.responses[success!]).content as Json
    t.ok(Object.keys(content).length > 0 && Object.values(content).every((media: Json) => media.schema !== undefined), `${name}'s success has a schema`)
    const errors = statuses.filter((s) => s >= '400')
    t.ok(errors.length > 0, `${name} has error answers`)
    for (const status of errors) {
      const error = resolve(doc, op.responses[status])
      t.ok(error.content['application/json'].schema, `${name} ${status} has a schema`)
    }
    t.ok(Array.isArray(op.security), `${name} declares its security`)
    for (const requirement of op.security as Json[]) for (const scheme of Object.keys(requirement)) t.ok(schemes.has(scheme), `${name}: ${scheme} is defined`)
    const keyed = op['x-key-types'] !== undefined
    if (keyed) t.same(op.security, [{ apiKey: [] }, { bearerApiKey: [] }], `${name} takes an API key in X-API-Key or as a bearer token`)
    if ((path.startsWith('/api/') || path.startsWith('/v1/')) && !keyless.test(path)) t.ok(op.security.length > 0, `${name} asks for credentials`)
    if (keyless.test(path)) t.same(op.security, [], `${name} needs no credentials`)
  }
  t.same(doc.components.securitySchemes.apiKey, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: doc.components.securitySchemes.apiKey.description,
  })
  t.match(doc.components.securitySchemes.accessToken, { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
  t.same(doc.paths['/api/orgs/me'].get.security, [{ accessToken: [] }], 'account management takes an access token')
  t.same(doc.paths['/api/projects/{projectId}/compliance/violations'].get.security, [{ accessToken: [] }], "so do the members' project routes")
  t.same(doc.paths['/api/ai/query'].post.security, [{ accessToken: [] }, { apiKey: [] }, { bearerApiKey: [] }], 'the query route takes either')
})

t.test('a generated client can pass the usage query and reads the real statuses and headers', async (t) => {
  const usage = doc.paths['/api/usage'].get
  t.match(usage.parameters, [
    { name: 'projectId', in: 'query', required: true, schema: { type: 'string' } },
    { name: 'period', in: 'query', required: false, schema: { enum: ['day', 'week', 'month'], default: 'month' } },
  ])
  t.match(resolve(doc, usage.responses[200]).content['application/json'].schema, {
    properties: { budget: { properties: { limit: {}, used: {}, remaining: {} } }, cache: {}, models: {}, period: {} },
  })
  t.match(
    doc.paths['/api/compliance/violations'].get.parameters.map((p: Json) => p.name),
    ['limit', 'cursor', 'since', 'until', 'status', 'type', 'severity'],
  )
  t.match(doc.paths['/api/auth/verify'].get.parameters, [{ name: 'token', in: 'query', required: true }])
  const created = [
    'POST /api/compliance/cases',
    'POST /api/compliance/policies',
    'POST /api/compliance/models',
    'POST /api/webhooks',
    'POST /api/projects',
    'POST /api/projects/{id}/keys',
    'POST /api/orgs/me/invitations',
    'POST /api/projects/{projectId}/webhooks',
  ]
  for (const route of created) {
    const [method, path] = route.split(' ')
    t.ok(doc.paths[path!][method!.toLowerCase()].responses[201], `${route} answers 201`)
    t.notOk(doc.paths[path!][method!.toLowerCase()].responses[200], `${route} does not answer 200`)
  }
  t.ok(doc.paths['/api/webhooks/{id}/deliveries/{delivery_id}/redeliver'].post.responses[202], 'a redelivery is accepted, 202')
  t.ok(doc.paths['/api/webhooks/{id}/deliveries/{delivery_id}/redeliver'].post.responses[409], 'or refused while pending, 409')
  t.match(resolve(doc, doc.paths['/api/auth/login'].post.responses[429]).headers, { 'retry-after': {} }, 'login attempts are limited')
  const complete = doc.paths['/api/ai/complete'].post
  t.match(resolve(doc, complete.responses[200]).content['application/json'].schema, { required: ['text', 'provider', 'model', 'cacheHit', 'usage'] })
  const answerHeaders = Object.keys(complete.responses[200].headers)
  for (const header of [
    'x-request-id',
    'x-gateway-model',
    'x-credits-charged',
    'x-credits-remaining',
    'x-cache-status',
    'x-governor-risk-level',
    'x-ratelimit-remaining',
  ]) {
    t.ok(answerHeaders.includes(header), `complete declares ${header}`)
  }
  t.ok(complete.parameters.some((p: Json) => p.name === 'Idempotency-Key' && p.in === 'header'))
  t.match(resolve(doc, complete.responses[429]).headers, { 'retry-after': {}, 'x-ratelimit-limit': {} })
  t.match(resolve(doc, complete.responses[400]).content['application/json'].schema, { $ref: '#/components/schemas/Error' })
  t.same(doc.components.schemas.Error.required, ['error', 'message', 'code'])
  t.same(Object.keys(doc.paths['/api/ai/chat'].post.responses[200].content), ['text/event-stream'])
})

t.test('the dialect routes declare their own answers and error shapes', async (t) => {
  const chat = doc.paths['/v1/chat/completions'].post
  t.same(Object.keys(chat.responses[200].content), ['application/json', 'text/event-stream'])
  t.match(chat.responses[200].content['application/json'].schema, {
    properties: { object: { const: 'chat.completion' }, choices: { type: 'array' }, usage: {} },
  })
  t.ok(chat.responses[200].headers['x-gateway-ignored-fields'])
  t.ok(chat.parameters.some((p: Json) => p.name === 'x-governor-metadata'))
  const openAiError = resolve(doc, chat.responses[401])
  t.match(resolve(doc, openAiError.content['application/json'].schema), {
    required: ['error'],
    properties: { error: { required: ['message', 'type', 'code', 'param'] } },
  })
  t.ok(openAiError.headers['x-should-retry'], "the SDKs' retry hint")
  const messages = doc.paths['/v1/messages'].post
  t.match(messages.responses[200].content['application/json'].schema, { properties: { type: { const: 'message' }, content: { type: 'array' } } })
  t.match(resolve(doc, resolve(doc, messages.responses[429]).content['application/json'].schema), {
    properties: { type: { const: 'error' }, error: { required: ['type', 'message'] } },
  })
  t.match(doc.paths['/v1/messages/count_tokens'].post.responses[200].content['application/json'].schema, { required: ['input_tokens'] })
  t.match(doc.paths['/v1/models'].get.responses[200].content['application/json'].schema, { properties: { object: { const: 'list' }, data: { type: 'array' } } })
  t.match(doc.paths['/v1/models/{id}'].get.parameters, [{ name: 'id', in: 'path', required: true }])
})

t.test('the handlers answer the statuses and bodies the document declares', async (t) => {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, {}, [
    { type: 'pk', env: 'prod' },
    { type: 'sk', env: 'prod' },
  ])
  const own = await startTestGateway(t, { dataDir })
  const pk = seeded.keys[0]!.key
  const sk = seeded.keys[1]!.key
  const model = await call(`${own.url}/api/compliance/models`, { key: pk, body: { provider: 'openai', model: 'gpt-4o' } })
  t.equal(model.status, 201)
  t.ok(doc.paths['/api/compliance/models'].post.responses[String(model.status)])
  t.ok(modelAnswer.safeParse(model.body).success, 'the created model matches its schema')
  const again = await call(`${own.url}/api/compliance/models`, { key: pk, body: { provider: 'openai', model: 'gpt-4o' } })
  t.equal(again.status, 409)
  t.ok(doc.paths['/api/compliance/models'].post.responses[String(again.status)], 'the conflict is declared')
  const usage = await call(`${own.url}/api/usage?projectId=${seeded.projectId}&period=week`, { key: pk })
  t.equal(usage.status, 200)
  t.ok(usageAnswer.safeParse(usage.body).success, 'usage matches its schema')
  const missing = await call(`${own.url}/api/usage`, { key: pk })
  t.equal(missing.status, 400, 'projectId is required, as the document says')
  t.ok(doc.paths['/api/usage'].get.responses[400])
  const health = await call(`${own.url}/api/health`, { key: sk })
  t.ok(healthSchema.safeParse(health.body).success, 'health matches its schema')
  const complete = await call(`${own.url}/api/ai/complete`, { key: sk, body: { messages: [{ role: 'user', content: 'Say hello' }], maxTokens: 8 } })
  t.equal(complete.status, 200)
  t.ok(completionResultSchema.safeParse(complete.body).success, 'the completion matches its schema')
  const declared = Object.keys(doc.paths['/api/ai/complete'].post.responses[200].headers)
  t.same(
    Object.keys(complete.headers).filter((name) => /^x-(gateway|credits|cache|ratelimit|governor)/.test(name) && !declared.includes(name)),
    [],
    'every x- header it sent is declared',
  )
})
