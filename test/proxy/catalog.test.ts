// The model table: built-ins, configured entries and their defaults, and the one cost function.
import t from 'tap'
import { buildCatalog, type ModelCatalog } from '../../proxy/catalog.ts'
import { BUILTIN_MODELS, costDollars } from '../../proxy/models.ts'

const empty = { models: {}, pricing: {} }
const capabilities = { tools: true, vision: false, json: true }

function built(config: Partial<Parameters<typeof buildCatalog>[0]>): ModelCatalog {
  const catalog = buildCatalog({ ...empty, ...config })
  if ('path' in catalog) throw new Error(`${catalog.path}: ${catalog.message}`)
  return catalog
}

t.test('the built-ins: the spec\'s eight models, cached prices as the providers publish them', async (t) => {
  const catalog = built({})
  t.equal(catalog.names.length, 8)
  t.match(catalog.info('gpt-4o'), { upstreamId: 'gpt-4o', inputPerMillion: 2.5, cachedInputPerMillion: 1.25, capabilities: { tools: true, vision: true, json: true } })
  t.match(catalog.info('gpt-4-turbo'), { cachedInputPerMillion: 10 }, 'no prompt caching: the input price')
  t.match(catalog.info('claude-3-haiku-20240307'), { cachedInputPerMillion: 0.025, cacheWritePerMillion: 0.3125 })
  t.match(catalog.info('mistral-large-latest'), { imageTokens: null, capabilities: { vision: false } })
})

t.test('a configured model gets the provider\'s cache shares, its name as upstream id, and image tokens with vision', async (t) => {
  const entry = { contextWindow: 8000, inputPerMillion: 4, outputPerMillion: 8, capabilities }
  const catalog = built({
    models: {
      'house-claude': { ...entry, provider: 'anthropic' },
      'house-gpt': { ...entry, provider: 'openai', upstreamId: 'gpt-4.1', cachedInputPerMillion: 1, capabilities: { ...capabilities, vision: true } },
    },
  })
  t.match(catalog.info('house-claude'), { upstreamId: 'house-claude', cachedInputPerMillion: 0.4, cacheWritePerMillion: 5, imageTokens: null, created: 0 })
  t.match(catalog.info('house-gpt'), { upstreamId: 'gpt-4.1', cachedInputPerMillion: 1, imageTokens: 1600 })
  t.equal(catalog.names.length, 10)
})

t.test('an entry under a built-in\'s name replaces it, and pricing overrides a model\'s prices', async (t) => {
  const catalog = built({
    models: { 'gpt-4o': { provider: 'openai', contextWindow: 64_000, inputPerMillion: 5, outputPerMillion: 20, capabilities } },
    pricing: { 'gpt-4o-mini': { inputPerMillion: 1, outputPerMillion: 2 } },
  })
  t.equal(catalog.names.length, 8)
  t.match(catalog.info('gpt-4o'), { contextWindow: 64_000, inputPerMillion: 5, cachedInputPerMillion: 2.5, created: BUILTIN_MODELS['gpt-4o']!.created })
  t.match(catalog.info('gpt-4o-mini'), { inputPerMillion: 1, outputPerMillion: 2, cachedInputPerMillion: 0.5, contextWindow: 128_000 })
})

t.test('cost: fresh input, cached reads, cache writes and output each at their price', async (t) => {
  const prices = { inputPerMillion: 4, outputPerMillion: 8, cachedInputPerMillion: 1, cacheWritePerMillion: 5 }
  t.equal(costDollars(prices, { promptTokens: 1_000_000, completionTokens: 0 }), 4)
  t.equal(costDollars(prices, { promptTokens: 1_000_000, completionTokens: 1_000_000, cachedInputTokens: 500_000, cacheWriteTokens: 250_000 }), 1 + 0.5 + 1.25 + 8)
})
