// The native routes answer a provider's refusals with its status in the spec's shape, streamed
// or not, and a failed provider call is not charged.
import t, { type Test } from 'tap'
import { call } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'
import { SHIPPED_TABLE } from '../../proxy/pipeline/model-table.ts'

const question = 'What is the weather in Paris?'

async function nativeGateway(t: Test, budgetDollars?: number, upstreamKey = 'sk-upstream-openai') {
  const mock = await startMockUpstream({ rateLimitRetryAfterS: 5 })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, budgetDollars === undefined ? {} : { budgetDollars })
  const { url } = await startTestGateway(t, {
    dataDir,
    env: { OPENAI_API_KEY: upstreamKey, OPENAI_BASE_URL: mock.url },
    overrides: { plugins: { router: { retry: { baseDelayMs: 0, maxDelayMs: 0 } } } },
  })
  return { url, mock, key: seeded.keys[0]!.key, projectId: seeded.projectId }
}

const nativeBody = { messages: [{ role: 'user', content: question }], model: 'gpt-4o-mini', maxTokens: 1000 }
const noStore = { 'cache-control': 'no-store' }

t.test("the native routes answer a provider's refusals with its status in the spec's shape", async (t) => {
  const gw = await nativeGateway(t)
  for (const path of ['/api/ai/complete', '/api/ai/chat']) {
    gw.mock.fail('bad-request')
    const invalid = await call(`${gw.url}${path}`, { key: gw.key, body: nativeBody, headers: noStore })
    t.equal(invalid.status, 400, `${path}: 400, not a 200 stream`)
    t.match(invalid.headers['content-type'], /^application\/json/)
    t.match(invalid.body, { error: 'Invalid request', message: /^openai answered 400: The mock refused/, code: 'context_length_exceeded' })
    t.equal(invalid.headers['x-should-retry'], 'false')

    gw.mock.fail('rate-limit')
    const limited = await call(`${gw.url}${path}`, { key: gw.key, body: nativeBody, headers: noStore })
    t.equal(limited.status, 429)
    t.equal(limited.body.error, 'Rate limit exceeded', "the spec's text for a 429")
    t.equal(limited.headers['retry-after'], '5')
    t.equal(limited.headers['x-should-retry'], 'true')

    gw.mock.fail('server-error', 3)
    const failed = await call(`${gw.url}${path}`, { key: gw.key, body: nativeBody, headers: noStore })
    t.equal(failed.status, 502)
    t.equal(failed.headers['x-should-retry'], 'false')
  }
})

t.test('a failed provider call is not charged and gives its budget hold back', async (t) => {
  // The budget fits one request's hold and not two: a hold a failure kept would refuse the next.
  const price = SHIPPED_TABLE.models['gpt-4o-mini']!
  const gw = await nativeGateway(t, (1.5 * nativeBody.maxTokens * price.outputPerMillion) / 1e6)
  for (const [fault, status] of [
    ['bad-request', 400],
    ['not-found', 404],
    ['unprocessable', 422],
    ['rate-limit', 429],
  ] as const) {
    gw.mock.fail(fault)
    const failed = await call(`${gw.url}/api/ai/complete`, { key: gw.key, body: nativeBody, headers: noStore })
    t.equal(failed.status, status, `${fault}: the provider's status, not a 402`)
    t.equal(failed.headers['x-credits-charged'], undefined, `${fault}: nothing charged`)
  }
  // Two at once: the provider holds its answers until the second is refused, so both holds are
  // decided together. Had a failure given its hold back twice, both would fit.
  gw.mock.hold()
  const pending = [0, 1].map(() => call(`${gw.url}/api/ai/complete`, { key: gw.key, body: nativeBody, headers: noStore }))
  const refused = await Promise.race(pending)
  t.equal(refused.status, 402, 'one hold fits, not two: every failure gave its hold back, once')
  gw.mock.release()
  const served = (await Promise.all(pending)).find((answer) => answer.status === 200)
  t.ok(served !== undefined, 'the other is served')
  const usage = await call(`${gw.url}/api/usage?projectId=${gw.projectId}`, { key: gw.key })
  t.equal(Math.round(usage.body.budget.used * 1e6), Math.round(Number(served?.headers['x-credits-charged']) * 1e6), 'only the answer is charged')
})

t.test("a provider refusing the gateway's own key is a 502 no retry cures, not the client's 401", async (t) => {
  const gw = await nativeGateway(t, undefined, 'sk-invalid-upstream-key')
  const refused = await call(`${gw.url}/api/ai/complete`, { key: gw.key, body: nativeBody, headers: noStore })
  t.equal(refused.status, 502)
  t.match(refused.body, { error: 'Upstream error', code: 'upstream_account_refused', message: /^openai answered 401: Incorrect API key provided/ })
  t.notOk(refused.body.message.includes('sk-invalid-upstream-key'), "the gateway's key is not echoed")
  t.equal(refused.headers['x-should-retry'], 'false')
  t.equal(gw.mock.requests.length, 1, 'not retried')
})
