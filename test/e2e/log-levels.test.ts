// What each key environment leaves in the log (the spec: development keys verbose, staging
// minimal, production errors only), on top of LOG_LEVEL.
import t, { type Test } from 'tap'
import { call } from '../helpers/http.ts'
import { captureLog, type LogCapture } from '../helpers/log-capture.ts'
import { startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

interface Setup {
  readonly url: string
  readonly keys: { dev: string; stg: string; prod: string; unmarked: string }
  readonly log: LogCapture
  readonly mock: MockUpstream
}

async function setup(t: Test, logLevel = 'info'): Promise<Setup> {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, { plan: 'pro' }, [
    { type: 'sk', env: 'dev' },
    { type: 'sk', env: 'stg' },
    { type: 'sk', env: 'prod' },
    { type: 'sk', env: null },
  ])
  const log = captureLog()
  const { url } = await startTestGateway(t, {
    dataDir,
    env: { OPENAI_API_KEY: 'sk-test-provider-key-000000', OPENAI_BASE_URL: mock.url },
    overrides: { logLevel, plugins: { router: { retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 2 } } } },
    logDestination: log.destination,
  })
  const [dev, stg, prod, unmarked] = seeded.keys.map((k) => k.key) as [string, string, string, string]
  return { url, keys: { dev, stg, prod, unmarked }, log, mock }
}

const PROMPT = 'Summarize the quarterly figures of the lighthouse keepers guild'
const ask = (suffix: string) => ({ messages: [{ role: 'user', content: `${PROMPT} ${suffix}` }], model: 'gpt-4o-mini' })

/** The log lines of one request, by its x-request-id. */
async function linesOf(s: Setup, key: string, suffix: string): Promise<{ status: number; lines: Array<Record<string, any>> }> {
  const answer = await call(`${s.url}/api/ai/complete`, { key, body: ask(suffix) })
  return { status: answer.status, lines: s.log.lines().filter((line) => line.reqId === answer.headers['x-request-id']) }
}

const BASE_FIELDS = ['level', 'time', 'service', 'reqId', 'msg']

t.test("a development key's request line carries metadata, timings and the routing decision, never the text", async (t) => {
  const s = await setup(t)
  const { status, lines } = await linesOf(s, s.keys.dev, 'dev')
  t.equal(status, 200)
  t.equal(lines.length, 1)
  t.match(lines[0], {
    level: 30,
    msg: 'request',
    route: 'ai_complete',
    status: 200,
    outcome: 'ok',
    method: 'POST',
    path: '/api/ai/complete',
    env: 'dev',
    testMode: true,
    keyId: String,
    projectId: String,
    rateLimitRemaining: Number,
    messageCount: 1,
    quality: 'balanced',
    requestedModel: 'gpt-4o-mini',
    maxTokens: 1000,
    mode: 'text',
    governed: false,
    provider: 'local',
    model: 'gpt-4o-mini',
    promptTokens: Number,
    completionTokens: Number,
    trimmedMessages: 0,
    cache: 'miss',
    ms: Number,
    upstreamMs: Number,
    firstByteMs: Number,
  })
  t.notOk(s.log.text().includes('lighthouse'), 'no prompt text')
  t.notOk(s.log.text().includes(s.keys.dev), 'no key')
})

t.test("a development key's line on a governed request carries the Governor's verdict", async (t) => {
  const s = await setup(t)
  const body = { ...ask('governed'), governorMetadata: { actionType: 'customer_support', senderId: 'user_1' } }
  const answer = await call(`${s.url}/api/ai/complete`, { key: s.keys.dev, body })
  t.equal(answer.status, 200)
  const lines = s.log.lines().filter((line) => line.reqId === answer.headers['x-request-id'])
  t.match(lines, [{ msg: 'request', governed: true, riskLevel: 'low', blocked: false }])
})

t.test("a staging key's request line is minimal, and unmarked keys log as before", async (t) => {
  const s = await setup(t)
  for (const [name, key] of [
    ['stg', s.keys.stg],
    ['unmarked', s.keys.unmarked],
  ] as const) {
    const { status, lines } = await linesOf(s, key, name)
    t.equal(status, 200)
    t.equal(lines.length, 1, name)
    const accessFields = ['route', 'status', 'outcome', 'ms', 'projectId', 'provider', 'model', 'cache', 'promptTokens', 'completionTokens', 'chargedDollars']
    t.same(Object.keys(lines[0]!).sort(), [...BASE_FIELDS, ...accessFields].sort(), name)
    t.match(lines[0], {
      level: 30,
      msg: 'request',
      route: 'ai_complete',
      status: 200,
      outcome: 'ok',
      projectId: String,
      provider: 'openai',
      model: 'gpt-4o-mini',
      cache: 'miss',
      promptTokens: Number,
      completionTokens: Number,
      chargedDollars: Number,
    })
  }
  t.notOk(s.log.text().includes('lighthouse'), 'no prompt text')
})

t.test('the access line says which plugin stopped the chain and with which error, and what an upstream failure was', async (t) => {
  const s = await setup(t)
  const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }
  const stopped = await call(`${s.url}/v1/chat/completions`, {
    key: s.keys.stg,
    body: { model: 'mistral-large-latest', messages: [{ role: 'user', content: [{ type: 'text', text: `${PROMPT} image` }, image] }] },
  })
  t.equal(stopped.status, 400)
  const [stopLine] = s.log.lines().filter((line) => line.reqId === stopped.headers['x-request-id'])
  t.match(stopLine, { msg: 'request', status: 400, outcome: 'client_error', stoppedBy: 'router', errorCode: 'invalid_request', projectId: String })
  t.notOk('chargedDollars' in stopLine!, 'nothing was charged')

  s.mock.fail('server-error', 2)
  const failed = await linesOf(s, s.keys.stg, 'fails')
  t.equal(failed.status, 502)
  t.match(failed.lines.at(-1), {
    msg: 'request',
    status: 502,
    outcome: 'upstream_error',
    errorCode: String,
    projectId: String,
    provider: 'openai',
    model: 'gpt-4o-mini',
  })
  t.notOk('stoppedBy' in failed.lines.at(-1)!)
  t.notOk(s.log.text().includes('lighthouse'), 'no prompt text')
})

t.test('a production key logs errors only: no request line, no retry warnings, the failure itself', async (t) => {
  const s = await setup(t)
  t.same((await linesOf(s, s.keys.prod, 'ok')).lines, [], 'a success leaves nothing')
  s.mock.fail('server-error', 2)
  const failed = await linesOf(s, s.keys.prod, 'fails')
  t.equal(failed.status, 502)
  t.same(
    failed.lines.map((line) => [line.level, line.msg]),
    [[50, 'request failed']],
    "only the error, not the two attempts' warnings",
  )
  s.mock.fail('server-error', 2)
  const staged = await linesOf(s, s.keys.stg, 'fails')
  t.same(
    staged.lines.map((line) => line.msg),
    ['upstream attempt failed', 'upstream attempt failed', 'request failed', 'request'],
    'a staging key keeps its warnings',
  )
})

t.test('LOG_LEVEL stays the floor: at warn, no key writes a request line', async (t) => {
  const s = await setup(t, 'warn')
  for (const key of [s.keys.dev, s.keys.stg, s.keys.unmarked]) t.same((await linesOf(s, key, key.slice(0, 8))).lines, [])
  s.mock.fail('server-error', 2)
  t.same(
    (await linesOf(s, s.keys.stg, 'fails')).lines.map((line) => line.msg),
    ['upstream attempt failed', 'upstream attempt failed', 'request failed'],
  )
})
