// The gateway's OpenTelemetry spans, as an OTLP/HTTP collector receives them: an in-process
// receiver takes the exporter's JSON, and the tests read the span tree out of it.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { call, hello } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { TEST_SECRET, freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

interface ExportedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: Record<string, unknown>
  readonly status: { readonly code?: number; readonly message?: string }
}

// OTLP's SpanKind numbers.
const INTERNAL = 1
const SERVER = 2
const CLIENT = 3
const STATUS_ERROR = 2

interface Receiver {
  readonly url: string
  /** Every body received, as sent (decompressed). */
  readonly bodies: string[]
  readonly contentTypes: string[]
  spans(): ExportedSpan[]
  resourceAttributes(): Record<string, unknown>
}

function attributesOf(list: ReadonlyArray<{ key: string; value: Record<string, unknown> }> = []): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const { key, value } of list) {
    const [kind, raw] = Object.entries(value)[0] ?? []
    out[key] = kind === 'intValue' ? Number(raw) : raw
  }
  return out
}

async function startReceiver(t: Test): Promise<Receiver> {
  const bodies: string[] = []
  const contentTypes: string[] = []
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end()
        return
      }
      const raw = Buffer.concat(parts)
      bodies.push((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8'))
      contentTypes.push(String(req.headers['content-type']))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const parsed = () => bodies.map((body) => JSON.parse(body) as { resourceSpans: any[] })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    contentTypes,
    spans: () =>
      parsed().flatMap((body) =>
        body.resourceSpans.flatMap((rs) =>
          rs.scopeSpans.flatMap((ss: any) =>
            ss.spans.map((span: any) => ({
              ...span,
              attributes: attributesOf(span.attributes),
              status: span.status ?? {},
            })),
          ),
        ),
      ),
    resourceAttributes: () => attributesOf(parsed()[0]?.resourceSpans[0]?.resource.attributes),
  }
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'
const PROMPT = 'The secret launch code is tangerine-4471'

async function setup(t: Test, env: Record<string, string> = {}) {
  const receiver = await startReceiver(t)
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url, gateway } = await startTestGateway(t, {
    dataDir,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OPENAI_BASE_URL: mock.url,
      OPENAI_API_KEY: 'sk-test-openai-secret',
      ANTHROPIC_BASE_URL: mock.url,
      ANTHROPIC_API_KEY: 'sk-test-anthropic-secret',
      ...env,
    },
    overrides: { plugins: { router: { retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 } } } },
  })
  return { receiver, mock, url, gateway, key: seeded.keys[0]!.key }
}

/**
 * Starts and stops a gateway in a fresh Node, answering one /healthz; returns the OpenTelemetry SDK
 * modules it resolved. The API package is not among them: prom-client loads it in any case.
 */
async function modulesResolvedBy(t: Test, env: Record<string, string>): Promise<string[]> {
  const dir = freshDataDir(t)
  const script = `
    import { registerHooks } from 'node:module'
    const resolved = []
    registerHooks({ resolve(specifier, context, next) {
      if (['sdk-trace', 'exporter-trace', 'opentelemetry/resources', 'tracing/otel'].some((name) => specifier.includes(name))) resolved.push(specifier)
      return next(specifier, context)
    } })
    const { start } = await import(${JSON.stringify(new URL('../../proxy/index.ts', import.meta.url).href)})
    const gateway = await start({ env: ${JSON.stringify(env)}, overrides: { port: 0, dataDir: ${JSON.stringify(join(dir, 'data'))}, logLevel: 'silent', plugins: { auth: { secret: ${JSON.stringify(TEST_SECRET)}, demoOnFirstStart: false } } } })
    await fetch(gateway.url + '/healthz')
    await gateway.close()
    console.log(JSON.stringify(resolved))`
  const file = join(dir, 'start.mjs')
  writeFileSync(file, script)
  // A Node of its own, without the test runner's loaders: only the gateway's imports are seen.
  const child = spawn(process.execPath, [file], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (part: Buffer) => {
    out += part.toString()
  })
  const [code] = await once(child, 'exit')
  t.equal(code, 0, 'the gateway started and stopped')
  return JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as string[]
}

t.test('off, the SDK is never loaded; on, it is', async (t) => {
  t.same(await modulesResolvedBy(t, {}), [], 'tracing off: no SDK module was even resolved')
  const receiver = await startReceiver(t)
  const on = await modulesResolvedBy(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })
  t.ok(on.includes('./tracing/otel.ts') && on.includes('@opentelemetry/sdk-trace-base'), 'tracing on: the SDK is loaded')
})

t.test('a request is a SERVER span with a child per plugin hook and a CLIENT span for the provider call', async (t) => {
  const { receiver, mock, url, gateway, key } = await setup(t, { OTEL_SERVICE_NAME: 'tollgate-under-test' })
  const res = await call(`${url}/api/ai/complete?debug=1`, {
    key,
    body: { messages: [{ role: 'user', content: PROMPT }], maxTokens: 40 },
    headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'rojo=1' },
  })
  t.equal(res.status, 200)
  await gateway.close()
  t.ok(receiver.contentTypes.length > 0, 'spans were exported at the stop')
  t.ok(
    receiver.contentTypes.every((type) => type.startsWith('application/json')),
    'as OTLP JSON',
  )
  t.equal(receiver.resourceAttributes()['service.name'], 'tollgate-under-test')

  const spans = receiver.spans()
  const servers = spans.filter((span) => span.kind === SERVER)
  t.equal(servers.length, 1, 'one request span')
  const server = servers[0]!
  t.equal(server.name, 'POST /api/ai/complete')
  t.equal(server.traceId, TRACE_ID, "in the caller's trace")
  t.equal(server.parentSpanId, PARENT_ID, "a child of the caller's span")
  t.match(server.attributes, {
    'http.request.method': 'POST',
    'http.route': '/api/ai/complete',
    'url.path': '/api/ai/complete',
    'http.response.status_code': 200,
  })

  const stages = spans.filter((span) => span.kind === INTERNAL)
  const stageNames = stages.map((span) => span.name)
  for (const name of [
    'tollgate.plugin auth onRequest',
    'tollgate.plugin router onRequest',
    'tollgate.plugin metering onRequest',
    'tollgate.plugin metering onComplete',
  ]) {
    t.ok(stageNames.includes(name), name)
  }
  t.ok(
    stages.every((span) => span.parentSpanId === server.spanId && span.traceId === TRACE_ID),
    'every stage is a child of the request',
  )

  const clients = spans.filter((span) => span.kind === CLIENT)
  t.equal(clients.length, 1, 'one provider call')
  const client = clients[0]!
  t.equal(client.name, 'chat gpt-4o-mini')
  t.equal(client.parentSpanId, server.spanId)
  t.match(client.attributes, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.response.model': 'gpt-4o-mini',
    'gen_ai.request.max_tokens': 40,
    'gen_ai.usage.input_tokens': res.body.usage.promptTokens,
    'gen_ai.usage.output_tokens': res.body.usage.completionTokens,
  })
  t.equal(mock.requests[0]!.headers.traceparent, `00-${TRACE_ID}-${client.spanId}-01`, 'the provider got the CLIENT span as its parent')
  t.equal(mock.requests[0]!.headers.tracestate, 'rojo=1')

  const payload = receiver.bodies.join('\n')
  t.notOk(payload.includes('tangerine'), 'no prompt text (nor the answer, which echoes it)')
  t.notOk(payload.includes('sk-test-openai-secret'), 'no provider key')
  t.notOk(payload.includes(key), 'no gateway key')
  t.notOk(payload.includes('debug=1'), 'no query string')
})

t.test('without a traceparent the request starts a trace and the provider call still carries it', async (t) => {
  const { receiver, mock, url, gateway, key } = await setup(t)
  const res = await call(`${url}/api/ai/chat`, { key, body: { ...hello, quality: 'cheap' } })
  t.equal(res.status, 200)
  await gateway.close()
  t.equal(receiver.resourceAttributes()['service.name'], 'tollgate', 'the default service name')
  const spans = receiver.spans()
  const server = spans.find((span) => span.kind === SERVER)!
  t.equal(server.parentSpanId ?? '', '', 'a root span')
  const client = spans.find((span) => span.kind === CLIENT)!
  t.match(client.attributes, { 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-3-haiku-20240307', 'gen_ai.usage.output_tokens': Number })
  t.equal(mock.requests[0]!.headers.traceparent, `00-${server.traceId}-${client.spanId}-01`)
})

t.test('a failed provider call is an error span, and so is the request it failed', async (t) => {
  const { receiver, mock, url, gateway, key } = await setup(t)
  mock.fail('server-error', 10)
  const res = await call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content: PROMPT }] } })
  t.equal(res.status, 502)
  await gateway.close()
  const spans = receiver.spans()
  const client = spans.find((span) => span.kind === CLIENT)!
  t.equal(client.status.code, STATUS_ERROR)
  t.equal(client.attributes['error.type'], 'upstream_error')
  t.notOk('gen_ai.usage.input_tokens' in client.attributes, 'no usage on a failed call')
  const server = spans.find((span) => span.kind === SERVER)!
  t.equal(server.status.code, STATUS_ERROR)
  t.equal(server.attributes['http.response.status_code'], 502)
  t.notOk(receiver.bodies.join('\n').includes('tangerine'), 'no prompt text')
})
