import t from 'tap'
import { routerSchema } from '../../../plugins/router/schema.ts'

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
  t.same(routerSchema.parse({ tiers: { cheap: 'gpt-4o' } }).tiers, { cheap: 'gpt-4o', balanced: 'gpt-4o-mini', frontier: 'gpt-4o' }, 'an unset tier keeps the spec\'s model')
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
