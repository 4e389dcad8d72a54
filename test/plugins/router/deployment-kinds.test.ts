// Deployments that are not the provider's own API: Azure OpenAI, called at its deployment URL
// with the key in api-key, and an OpenAI-compatible server serving the models listed for it.
import OpenAI from 'openai'
import t from 'tap'
import { captureLog } from '../../helpers/log-capture.ts'
import { seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
import { KEYS, ask, gatewayWith, mocks } from './deployment-fixtures.ts'

t.test('an Azure OpenAI deployment is called at its deployment URL with its api-version and the key in api-key', async (t) => {
  const [a] = await mocks(t)
  const { openai } = await gatewayWith(t, {
    providers: {
      openai: {
        deployments: [
          { name: 'azure-eu', kind: 'azure', baseUrl: a.url, apiKeyEnv: 'KEY_A', apiVersion: '2024-10-21', azureDeployments: { 'gpt-4o': 'prod-4o' } },
        ],
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
      models: {
        'llama-3.3-70b': { provider: 'openai', upstreamId: 'llama-3.3-70b-versatile', contextWindow: 131_072, inputPerMillion: 0.59, outputPerMillion: 0.79 },
      },
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

t.test('the log names each deployment and its address, never its key, even when a call fails', async (t) => {
  const [a, b] = await mocks(t)
  const log = captureLog()
  const gw = await startTestGateway(t, {
    env: KEYS,
    logDestination: log.destination,
    overrides: {
      logLevel: 'trace',
      plugins: {
        router: {
          retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
          providers: {
            openai: {
              deployments: [
                { name: 'direct', baseUrl: a.url, apiKeyEnv: 'KEY_A' },
                { name: 'azure-eu', kind: 'azure', baseUrl: b.url, apiKeyEnv: 'KEY_B', apiVersion: '2024-10-21', azureDeployments: { 'gpt-4o-mini': 'mini' } },
              ],
            },
          },
        },
      },
    },
  })
  const key = (await seedProject(gw.dataDir)).keys[0]!.key
  const openai = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 })
  a.fail('server-error')
  b.fail('server-error')
  await t.rejects(ask(openai, 'Hello'), { message: /^502 / }, 'both deployments failed')
  t.ok(
    log.lines().some((line) => line.msg === 'request failed'),
    'the failure was logged',
  )
  const start = log.lines().find((line) => line.msg === 'provider upstream' && line.provider === 'openai')
  t.match(start?.upstream, /^direct: http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions, azure-eu: http:\/\/127\.0\.0\.1:\d+\/openai\/deployments\/…$/)
  t.notOk(log.text().includes(KEYS.KEY_A), 'no key in the log')
  t.notOk(log.text().includes(KEYS.KEY_B))
})
