import t from 'tap'
import { routerSchema } from '../../../plugins/router/schema.ts'
import { pluginConfigError } from '../../helpers/plugin-config.ts'

t.test('fills every default from an empty object', async (t) => {
  t.same(routerSchema.parse({}), {
    providers: {
      openai: { baseUrl: 'https://api.openai.com' },
      anthropic: { baseUrl: 'https://api.anthropic.com' },
      mistral: { baseUrl: 'https://api.mistral.ai' },
    },
    timeouts: { connectMs: 5000, firstByteMs: 30_000, idleMs: 60_000 },
    retry: { attempts: 2, baseDelayMs: 200, maxDelayMs: 2000 },
    tiers: { cheap: 'claude-3-haiku-20240307', balanced: 'gpt-4o-mini', frontier: 'gpt-4o' },
    fallback: {},
    balancing: { cooldownMs: 30_000 },
    fallbacks: {},
    fallbackOn: { contextLength: true, contentPolicy: true },
    connections: 4096,
    countTimeoutMs: 30_000,
    local: { chunkDelayMs: 25 },
  })
})

t.test('keeps the defaults beside a partly given object', async (t) => {
  const config = routerSchema.parse({ providers: { openai: { apiKey: 'sk-x' } }, timeouts: { connectMs: 100 }, local: { chunkDelayMs: 0 } })
  t.same(config.providers.openai, { baseUrl: 'https://api.openai.com', apiKey: 'sk-x' })
  t.same(config.providers.mistral, { baseUrl: 'https://api.mistral.ai' })
  t.same(config.timeouts, { connectMs: 100, firstByteMs: 30_000, idleMs: 60_000 })
  t.equal(config.local.chunkDelayMs, 0)
  t.same(
    routerSchema.parse({ tiers: { cheap: 'gpt-4o' } }).tiers,
    { cheap: 'gpt-4o', balanced: 'gpt-4o-mini', frontier: 'gpt-4o' },
    "an unset tier keeps the spec's model",
  )
})

t.test('rejects unknown keys at every level', async (t) => {
  for (const input of [
    { retries: 3 },
    { providers: { cohere: {} } },
    { providers: { openai: { key: 'sk-x' } } },
    { timeouts: { totalMs: 1 } },
    { retry: { jitter: true } },
    { fallback: { premium: 'gpt-4o' } },
    { local: { latencyMs: 5 } },
  ]) {
    const result = routerSchema.safeParse(input)
    t.equal(result.success, false, JSON.stringify(input))
    t.match(result.error?.issues[0], { code: 'unrecognized_keys' })
  }
})

t.test('rejects a fallback that is not a known model, an empty key and a base URL that is not http', async (t) => {
  t.match(routerSchema.safeParse({ fallback: { cheap: 'gpt-9-ultra' } }).error?.issues[0], { path: ['fallback', 'cheap'] })
  t.match(routerSchema.safeParse({ providers: { anthropic: { apiKey: '' } } }).error?.issues[0], {
    path: ['providers', 'anthropic', 'apiKey'],
    message: /leave it unset/,
  })
  t.match(routerSchema.safeParse({ providers: { mistral: { baseUrl: 'ftp://example.com' } } }).error?.issues[0], {
    path: ['providers', 'mistral', 'baseUrl'],
  })
  t.equal(routerSchema.safeParse({ timeouts: { firstByteMs: 0 } }).success, false)
  t.equal(routerSchema.safeParse({ retry: { attempts: -1 } }).success, false)
  t.equal(routerSchema.safeParse({ fallback: { frontier: 'claude-3-opus-20240229' } }).success, true)
})

t.test('reads a list of deployments, each with its defaults', async (t) => {
  const config = routerSchema.parse({
    providers: {
      openai: {
        deployments: [
          { name: 'us', apiKey: 'sk-us' },
          {
            name: 'azure-eu',
            kind: 'azure',
            baseUrl: 'https://eu.openai.azure.com',
            apiKey: 'az',
            weight: 3,
            apiVersion: '2024-10-21',
            azureDeployments: { 'gpt-4o': 'prod-4o' },
          },
          { name: 'groq', kind: 'openai-compatible', baseUrl: 'https://api.groq.com/openai/v1', apiKey: 'gsk', models: ['gpt-4o-mini'] },
        ],
      },
    },
    fallbacks: { 'gpt-4o': ['claude-3-opus-20240229'] },
  })
  t.match(config.providers.openai.deployments, [{ name: 'us', kind: 'native', weight: 1 }, { kind: 'azure', weight: 3 }, { kind: 'openai-compatible' }])
  t.same(config.fallbacks, { 'gpt-4o': ['claude-3-opus-20240229'] })
})

t.test('says what is wrong with a deployment, at its path', async (t) => {
  const issue = (input: unknown) => routerSchema.safeParse(input).error?.issues[0]
  const deployment = (fields: Record<string, unknown>, provider = 'openai') => ({
    providers: { [provider]: { deployments: [{ name: 'one', apiKey: 'k', ...fields }] } },
  })
  t.match(issue({ providers: { openai: { apiKey: 'k', deployments: [{ name: 'one', apiKey: 'k' }] } } }), {
    path: ['providers', 'openai', 'deployments'],
    message: /either apiKey .* or deployments/,
  })
  t.match(issue({ providers: { openai: { deployments: [{ name: 'one' }] } } }), {
    path: ['providers', 'openai', 'deployments', 0, 'apiKey'],
    message: /apiKeyEnv/,
  })
  t.match(issue(deployment({ name: 'has a space' })), { path: ['providers', 'openai', 'deployments', 0, 'name'] })
  t.match(issue(deployment({ weight: 0 })), { path: ['providers', 'openai', 'deployments', 0, 'weight'] })
  t.match(issue(deployment({ kind: 'azure', baseUrl: 'https://x.openai.azure.com', azureDeployments: { 'gpt-4o': 'd' } })), {
    path: ['providers', 'openai', 'deployments', 0, 'apiVersion'],
  })
  t.match(issue(deployment({ kind: 'azure', baseUrl: 'https://x.openai.azure.com', apiVersion: '2024-10-21' })), {
    path: ['providers', 'openai', 'deployments', 0, 'azureDeployments'],
  })
  t.match(
    issue(deployment({ kind: 'azure', baseUrl: 'https://x.openai.azure.com', apiVersion: 'v', azureDeployments: { 'gpt-4o': 'd' }, models: ['gpt-4o-mini'] })),
    {
      path: ['providers', 'openai', 'deployments', 0, 'models'],
      message: /leave models out/,
    },
  )
  t.match(issue(deployment({ kind: 'openai-compatible' })), { path: ['providers', 'openai', 'deployments', 0, 'baseUrl'], message: /needs its baseUrl/ })
  t.match(issue(deployment({ apiVersion: '2024-10-21' })), { message: /belong to a deployment of kind azure/ })
  t.match(issue(deployment({ kind: 'azure', baseUrl: 'https://x', apiVersion: 'v', azureDeployments: { 'gpt-4o': 'd' } }, 'anthropic')), {
    path: ['providers', 'anthropic', 'deployments', 0, 'kind'],
    message: /only OpenAI's models/,
  })
  t.match(issue(deployment({ models: ['gpt-9-ultra'] })), { path: ['providers', 'openai', 'deployments', 0, 'models', 0] })
  t.match(issue({ providers: { openai: { deployments: [{ name: 'twice', apiKey: 'a' }] }, mistral: { deployments: [{ name: 'twice', apiKey: 'b' }] } } }), {
    path: ['providers', 'mistral', 'deployments', 0, 'name'],
    message: /used twice/,
  })
  t.match(issue({ fallbacks: { 'gpt-4o': ['gpt-9-ultra'] } }), { path: ['fallbacks', 'gpt-4o', 0] })
  t.match(issue({ fallbacks: { 'gpt-4o': [] } }), { path: ['fallbacks', 'gpt-4o'] })
})

t.test('a bad value is refused with its path, or its variable', async (t) => {
  t.match(pluginConfigError('router', { retry: { attempts: -1 } }), /^invalid configuration: plugins\.router\.retry\.attempts: Too small/)
  t.match(pluginConfigError('router', {}, { LOCAL_CHUNK_DELAY_MS: '-5' }), /LOCAL_CHUNK_DELAY_MS/)
  t.match(pluginConfigError('router', { timeout: 5 }), /^invalid configuration: plugins\.router: Unrecognized key: "timeout"/)
})
