// Fallbacks by model, end to end with the official openai client: a named model falls back to
// the next of its list on a context-length refusal, the answer names the model that served and
// only it is charged, and the budget hold covers the dearest model that may serve.
import t from 'tap'
import { call } from '../../helpers/http.ts'
import { seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
import { until } from '../../helpers/until.ts'
import { KEYS, ask, gatewayWith, mocks } from './deployment-fixtures.ts'

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

t.test('the budget hold covers the dearest model a fallback may call', async (t) => {
  const [a, b] = await mocks(t)
  const router = { providers: { openai: { baseUrl: a.url, apiKeyEnv: 'KEY_A' }, anthropic: { baseUrl: b.url, apiKeyEnv: 'KEY_B' } } }
  const withFallback = await startTestGateway(t, {
    env: KEYS,
    overrides: { plugins: { router: { ...router, fallbacks: { 'gpt-4o-mini': ['claude-3-opus-20240229'] } } } },
  })
  const without = await startTestGateway(t, { env: KEYS, overrides: { plugins: { router } } })
  // 100 answer tokens: about $0.00006 on gpt-4o-mini, $0.0075 on claude-3-opus.
  const request = { model: 'gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user' as const, content: 'Short question' }] }
  for (const [gw, expected] of [
    [without, 200],
    [withFallback, 402],
  ] as const) {
    const key = (await seedProject(gw.dataDir, { budgetDollars: 0.001 })).keys[0]!.key
    const answer = await call(`${gw.url}/v1/chat/completions`, { key, body: request })
    t.equal(answer.status, expected)
  }
})
