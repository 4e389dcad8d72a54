// A provider served by several deployments, end to end with the official openai client and two
// mock upstreams: requests spread by weight under a seed, a deployment that answers 429 rests
// until the manual clock passes its retry-after, a named model falls back to the next one on a
// context-length refusal, and Azure OpenAI and other OpenAI-compatible servers are called the way
// they expect.
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import { call } from '../../helpers/http.ts'
import { startMockUpstream, type MockUpstream } from '../../helpers/mock-upstream.ts'
import { seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
import { until } from '../../helpers/until.ts'

const KEYS = { KEY_A: 'sk-deployment-a-0123456789', KEY_B: 'sk-deployment-b-0123456789' }
const NO_BACKOFF = { attempts: 2, baseDelayMs: 0, maxDelayMs: 0 }

interface ManualClock {
  ms: number
  now(): number
}

const manualClock = (): ManualClock => ({ ms: Date.UTC(2026, 0, 5, 12), now() { return this.ms } })

async function mocks(t: Test, options: Parameters<typeof startMockUpstream>[0] = {}): Promise<[MockUpstream, MockUpstream]> {
  const a = await startMockUpstream(options)
  const b = await startMockUpstream(options)
  t.teardown(() => Promise.all([a.close(), b.close()]))
  return [a, b]
}

async function gatewayWith(t: Test, router: Record<string, unknown>, clock: ManualClock = manualClock()) {
  const gw = await startTestGateway(t, { env: KEYS, clock, overrides: { plugins: { router: { retry: NO_BACKOFF, ...router } } } })
  const { projectId, keys } = await seedProject(gw.dataDir)
  const openai = new OpenAI({ apiKey: keys[0]!.key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  return { ...gw, projectId, key: keys[0]!.key, openai, clock }
}

const twoDeployments = (a: MockUpstream, b: MockUpstream, weights: readonly [number, number] = [1, 1]) => ({
  deployments: [
    { name: 'a', baseUrl: a.url, apiKeyEnv: 'KEY_A', weight: weights[0] },
    { name: 'b', baseUrl: b.url, apiKeyEnv: 'KEY_B', weight: weights[1] },
  ],
})

const ask = (openai: OpenAI, text: string, model = 'gpt-4o-mini') =>
  openai.chat.completions.create({ model, messages: [{ role: 'user', content: text }] }).withResponse()

/** The counter's value for one deployment, from /metrics. */
async function counter(url: string, name: string, deployment: string): Promise<number> {
  const text = (await call(`${url}/metrics`)).body as string
  const line = text.split('\n').find((l) => l.startsWith(`${name}{provider="openai",deployment="${deployment}"}`))
  return line === undefined ? 0 : Number(line.split(' ').at(-1))
}

t.test('spreads requests over the deployments by weight, the same way for the same seed', async (t) => {
  const [a, b] = await mocks(t)
  const { openai, url } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b, [3, 1]) }, balancing: { seed: 42 } })
  const total = 400
  for (let batch = 0; batch < total; batch += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, i) => ask(openai, `Question ${batch + i}`)))
  }
  t.equal(a.requests.length + b.requests.length, total)
  // Weight 3 to 1: 300 expected on a; a binomial's standard deviation here is under 9.
  t.ok(Math.abs(a.requests.length - 300) <= 40, `a got ${a.requests.length} of ${total}, about three quarters`)
  t.equal(a.requests[0]?.headers.authorization, `Bearer ${KEYS.KEY_A}`, 'each deployment is called with its own key')
  t.equal(b.requests[0]?.headers.authorization, `Bearer ${KEYS.KEY_B}`)
  t.equal(await counter(url, 'tollgate_deployment_requests_total', 'a'), a.requests.length)
  t.equal(await counter(url, 'tollgate_deployment_requests_total', 'b'), b.requests.length)

  const [c, d] = await mocks(t)
  const again = await gatewayWith(t, { providers: { openai: twoDeployments(c, d, [3, 1]) }, balancing: { seed: 42 } })
  for (let i = 0; i < 40; i++) await ask(again.openai, `Question ${i}`)
  const first = await gatewayWith(t, { providers: { openai: twoDeployments(a, b, [3, 1]) }, balancing: { seed: 42 } })
  const before = a.requests.length
  for (let i = 0; i < 40; i++) await ask(first.openai, `Question ${i}`)
  t.equal(a.requests.length - before, c.requests.length, 'the same seed sends the same requests to the same deployments')
})

t.test('a deployment that answers 429 rests until its retry-after has passed on the clock, and the request is served by another', async (t) => {
  const [a, b] = await mocks(t, { rateLimitRetryAfterS: 30 })
  const { openai, url, clock } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b) }, balancing: { seed: 1, cooldownMs: 600_000 } })
  a.fail('rate-limit')
  let asked = 0
  while (a.requests.length === 0) {
    const { data } = await ask(openai, `Before ${asked++}`)
    t.equal(data.choices[0]?.message.content, `Echo: Before ${asked - 1}`, 'every request is answered')
    if (asked > 50) throw new Error('deployment a was never chosen')
  }
  t.equal(await counter(url, 'tollgate_deployment_cooldowns_total', 'a'), 1)
  t.equal(await counter(url, 'tollgate_deployment_errors_total', 'a'), 1)

  for (let i = 0; i < 20; i++) await ask(openai, `Resting ${i}`)
  t.equal(a.requests.length, 1, 'no request reaches a resting deployment')

  clock.ms += 29_000
  for (let i = 0; i < 10; i++) await ask(openai, `Still resting ${i}`)
  t.equal(a.requests.length, 1, 'its retry-after, not the longer configured cooldown, and not a second less')

  clock.ms += 1_000
  for (let i = 0; i < 40 && a.requests.length === 1; i++) await ask(openai, `Recovered ${i}`)
  t.ok(a.requests.length > 1, 'it is back once the clock passes its retry-after')
})

t.test('when every deployment rests, the request gets a retryable 503 with the time until the first is back', async (t) => {
  const [a, b] = await mocks(t)
  const { openai, clock } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b) }, balancing: { seed: 3, cooldownMs: 20_000 } })
  a.fail('server-error')
  b.fail('server-error')
  try {
    await ask(openai, 'Anyone there?')
    t.fail('expected a 503')
  } catch (err) {
    t.ok(err instanceof OpenAI.InternalServerError)
    const error = err as InstanceType<typeof OpenAI.InternalServerError>
    t.equal(error.status, 503)
    t.equal(error.headers.get('retry-after'), '20')
  }
  t.equal(a.requests.length + b.requests.length, 2, 'each deployment was tried once, then rested')
  clock.ms += 20_000
  const { data } = await ask(openai, 'And now?')
  t.equal(data.choices[0]?.message.content, 'Echo: And now?')
})

t.test('a named model falls back to the next model of its list on a context-length refusal, which serves, says so and alone is charged', async (t) => {
  const [a, b] = await mocks(t)
  const { openai, url, key, projectId } = await gatewayWith(t, {
    providers: { openai: { baseUrl: a.url, apiKeyEnv: 'KEY_A' }, anthropic: { baseUrl: b.url, apiKeyEnv: 'KEY_B' } },
    fallbacks: { 'gpt-4o': ['claude-sonnet-4-20250514'] },
  })
  a.fail('context-length')
  const { data, response } = await ask(openai, 'A very long story', 'gpt-4o')
  t.equal(data.model, 'claude-sonnet-4-20250514', 'the answer names the model that served it')
  t.equal(response.headers.get('x-gateway-model'), 'anthropic/claude-sonnet-4-20250514')
  t.equal(data.choices[0]?.message.content, 'Echo: A very long story')
  t.equal(a.requests.length, 1, 'a refusal is not retried on the same model')
  t.equal(b.requests[0]?.path, '/v1/messages')

  let usage: any
  await until(async () => {
    usage = (await call(`${url}/api/usage?projectId=${projectId}`, { key })).body
    return usage.models?.['claude-sonnet-4-20250514'] !== undefined
  }, 'the usage of the fallback')
  t.same(Object.keys(usage.models), ['claude-sonnet-4-20250514'], 'only the model that served is charged')
  t.equal(usage.models['claude-sonnet-4-20250514'].requests, 1)
})

t.test('a context-length refusal reaches the client when fallbackOn turns it off', async (t) => {
  const [a, b] = await mocks(t)
  const { openai } = await gatewayWith(t, {
    providers: { openai: { baseUrl: a.url, apiKeyEnv: 'KEY_A' }, anthropic: { baseUrl: b.url, apiKeyEnv: 'KEY_B' } },
    fallbacks: { 'gpt-4o': ['claude-sonnet-4-20250514'] },
    fallbackOn: { contextLength: false },
  })
  a.fail('context-length')
  await t.rejects(ask(openai, 'A very long story', 'gpt-4o'), { message: /maximum context length/ })
  t.equal(b.requests.length, 0)
})

t.test('an Azure OpenAI deployment is called at its deployment URL with its api-version and the key in api-key', async (t) => {
  const [a] = await mocks(t)
  const { openai } = await gatewayWith(t, {
    providers: {
      openai: {
        deployments: [{ name: 'azure-eu', kind: 'azure', baseUrl: a.url, apiKeyEnv: 'KEY_A', apiVersion: '2024-10-21', azureDeployments: { 'gpt-4o': 'prod-4o' } }],
      },
    },
  })
  const { data, response } = await ask(openai, 'Hello Azure', 'gpt-4o')
  t.equal(data.choices[0]?.message.content, 'Echo: Hello Azure')
  t.equal(response.headers.get('x-gateway-model'), 'openai/gpt-4o')
  const seen = a.requests[0]!
  t.equal(seen.path, '/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21')
  t.equal(seen.headers['api-key'], KEYS.KEY_A)
  t.equal(seen.headers.authorization, undefined, 'no bearer token beside it')
})

t.test('an OpenAI-compatible server serves the models listed for it, under their upstream ids', async (t) => {
  const [a, b] = await mocks(t)
  const gw = await startTestGateway(t, {
    env: KEYS,
    overrides: {
      models: { 'llama-3.3-70b': { provider: 'openai', upstreamId: 'llama-3.3-70b-versatile', contextWindow: 131_072, inputPerMillion: 0.59, outputPerMillion: 0.79 } },
      plugins: {
        router: {
          providers: {
            openai: {
              deployments: [
                { name: 'openai', baseUrl: a.url, apiKeyEnv: 'KEY_A', models: ['gpt-4o-mini'] },
                { name: 'groq', kind: 'openai-compatible', baseUrl: `${b.url}/openai/v1`, apiKeyEnv: 'KEY_B', models: ['llama-3.3-70b'] },
              ],
            },
          },
        },
      },
    },
  })
  const key = (await seedProject(gw.dataDir)).keys[0]!.key
  const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  await ask(openai, 'Hello Llama', 'llama-3.3-70b')
  await ask(openai, 'Hello GPT', 'gpt-4o-mini')
  t.equal(b.requests.length, 1)
  t.equal(b.requests[0]?.path, '/openai/v1/chat/completions')
  t.match(b.requests[0]?.body, { model: 'llama-3.3-70b-versatile' })
  t.equal(b.requests[0]?.headers.authorization, `Bearer ${KEYS.KEY_B}`)
  t.equal(a.requests.length, 1)
  t.match(a.requests[0]?.body, { model: 'gpt-4o-mini' })
})

t.test('the budget hold covers the dearest model a fallback may call', async (t) => {
  const [a, b] = await mocks(t)
  const router = { providers: { openai: { baseUrl: a.url, apiKeyEnv: 'KEY_A' }, anthropic: { baseUrl: b.url, apiKeyEnv: 'KEY_B' } } }
  const withFallback = await startTestGateway(t, { env: KEYS, overrides: { plugins: { router: { ...router, fallbacks: { 'gpt-4o-mini': ['claude-3-opus-20240229'] } } } } })
  const without = await startTestGateway(t, { env: KEYS, overrides: { plugins: { router } } })
  // 100 answer tokens: about $0.00006 on gpt-4o-mini, $0.0075 on claude-3-opus.
  const request = { model: 'gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Short question' }] }
  for (const [gw, expected] of [[without, 200], [withFallback, 402]] as const) {
    const key = (await seedProject(gw.dataDir, { budgetDollars: 0.001 })).keys[0]!.key
    const answer = await call(`${gw.url}/v1/chat/completions`, { key, body: request })
    t.equal(answer.status, expected)
  }
})

t.test('a stream that a deployment fails to open is opened on another, and the failed one rests', async (t) => {
  const [a, b] = await mocks(t)
  // So small a weight on b that a opens the stream, under this seed.
  const { openai, url } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b, [1, 0.001]) }, balancing: { seed: 5 } })
  a.fail('server-error')
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Stream it' }] })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
  t.equal(text, 'Echo: Stream it')
  t.equal(await counter(url, 'tollgate_deployment_cooldowns_total', 'a'), 1, 'the deployment that failed rests')
  t.equal(a.requests.length, 1)
  t.equal(b.requests.length, 1)
})
