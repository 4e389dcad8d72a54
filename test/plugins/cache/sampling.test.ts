// Sampling kept: on the client dialects the exact cache answers only deterministic requests
// (temperature 0, or a seed) unless the project opts in with cacheSampled; the spec's own
// endpoints cache every identical request. Counted in calls that reach the provider.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import t, { type Test } from 'tap'
import { call } from '../../helpers/http.ts'
import { startMockUpstream } from '../../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

const question = { role: 'user' as const, content: 'Tell me a story about a lighthouse.' }

async function setup(t: Test) {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const plain = await seedProject(dataDir, { name: 'plain' })
  const sampled = await seedProject(dataDir, { name: 'sampled', changes: { cacheSampled: true } })
  const { url } = await startTestGateway(t, {
    dataDir,
    env: { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'sk-ant-upstream', ANTHROPIC_BASE_URL: mock.url },
  })
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })
  const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 })
  return { mock, url, plainKey: plain.keys[0]!.key, sampledKey: sampled.keys[0]!.key, openai, anthropic }
}

/** Upstream calls that `ask` makes when run twice. */
async function callsOfTwice(mock: { requests: readonly unknown[] }, ask: () => Promise<unknown>): Promise<number> {
  const before = mock.requests.length
  await ask()
  await ask()
  return mock.requests.length - before
}

t.test('the OpenAI dialect: a sampled request is asked anew each time, a deterministic one once', async (t) => {
  const { mock, plainKey, openai } = await setup(t)
  const client = openai(plainKey)
  const ask = (extra: { temperature?: number; seed?: number }) => () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], ...extra })
  t.equal(await callsOfTwice(mock, ask({ temperature: 1.2 })), 2, 'temperature 1.2 twice: two calls')
  t.equal(await callsOfTwice(mock, ask({})), 2, "the provider's default temperature twice: two calls")
  t.equal(await callsOfTwice(mock, ask({ temperature: 0 })), 1, 'temperature 0 twice: one call')
  t.equal(await callsOfTwice(mock, ask({ temperature: 0.9, seed: 42 })), 1, 'a seed twice: one call')
  const { response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], temperature: 1.2 }).withResponse()
  t.equal(response.headers.get('x-cache-status'), 'MISS')
})

t.test('the Anthropic dialect, streamed too: temperature 0 is served from the cache, 0.9 is not', async (t) => {
  const { mock, plainKey, anthropic } = await setup(t)
  const client = anthropic(plainKey)
  // This SDK's types no longer list temperature (its newest models refuse it); the API takes it.
  const bodyAt = (temperature: number, content: string) => ({
    model: 'claude-3-5-haiku-20241022',
    max_tokens: 100,
    temperature,
    messages: [{ role: 'user' as const, content }],
  })
  const ask = (temperature: number) => () => client.messages.create(bodyAt(temperature, question.content))
  t.equal(await callsOfTwice(mock, ask(0.9)), 2)
  t.equal((mock.requests.at(-1)!.body as { temperature?: number }).temperature, 0.9, 'the SDK sends the temperature')
  t.equal(await callsOfTwice(mock, ask(0)), 1)
  const stream = (temperature: number) => () => client.messages.stream(bodyAt(temperature, 'Streamed.')).finalMessage()
  t.equal(await callsOfTwice(mock, stream(0.9)), 2)
  t.equal(await callsOfTwice(mock, stream(0)), 1)
})

t.test('a project that opts in with cacheSampled has sampled dialect requests served from the cache', async (t) => {
  const { mock, sampledKey, openai } = await setup(t)
  const client = openai(sampledKey)
  t.equal(await callsOfTwice(mock, () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [question], temperature: 1.2 })), 1)
})

t.test("the spec's endpoints keep the spec's rule: identical requests are served from the cache at any temperature", async (t) => {
  const { mock, url, plainKey } = await setup(t)
  const body = { model: 'gpt-4o-mini', messages: [question], temperature: 1.2 }
  t.equal(await callsOfTwice(mock, () => call(`${url}/api/ai/complete`, { key: plainKey, body })), 1)
  const hit = await call(`${url}/api/ai/complete`, { key: plainKey, body })
  t.equal(hit.headers['x-cache-status'], 'HIT')
})
