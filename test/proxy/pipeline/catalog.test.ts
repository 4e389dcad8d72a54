// The model table: the shipped file, configured entries and their defaults, aliases, names let
// through unpriced, and the one cost function.
import t from 'tap'
import { buildCatalog, type CatalogConfig, type ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { costDollars } from '../../../proxy/pipeline/models.ts'
import { SHIPPED_TABLE } from '../../../proxy/pipeline/model-table.ts'

const empty: CatalogConfig = { models: {}, pricing: {}, aliases: {}, unpricedModels: { openai: [], anthropic: [], mistral: [] } }
const capabilities = { tools: true, vision: false, json: true, reasoning: false }

function built(config: Partial<CatalogConfig>): ModelCatalog {
  const catalog = buildCatalog({ ...empty, ...config })
  if ('path' in catalog) throw new Error(`${catalog.path}: ${catalog.message}`)
  return catalog
}

function problem(config: Partial<CatalogConfig>): string {
  const catalog = buildCatalog({ ...empty, ...config })
  return 'path' in catalog ? `${catalog.path}: ${catalog.message}` : 'no problem'
}

t.test("the shipped table: the spec's eight models and today's, at the providers' list prices", async (t) => {
  const catalog = built({})
  const spec = [
    'gpt-4o',
    'gpt-4o-mini',
    'gpt-4-turbo',
    'claude-3-opus-20240229',
    'claude-3-sonnet-20240229',
    'claude-3-haiku-20240307',
    'mistral-large-latest',
    'mistral-medium-latest',
  ]
  for (const name of spec) t.ok(catalog.has(name), `${name}, a model of the spec`)
  const current = [
    'gpt-4.1',
    'gpt-4.1-mini',
    'gpt-4.1-nano',
    'gpt-5',
    'gpt-5-mini',
    'gpt-5-nano',
    'o3',
    'o3-mini',
    'o4-mini',
    'claude-3-5-haiku-20241022',
    'claude-3-5-sonnet-20241022',
    'claude-3-7-sonnet-20250219',
    'claude-sonnet-4-20250514',
    'claude-opus-4-20250514',
    'mistral-small-latest',
    'codestral-latest',
  ]
  for (const name of current) t.ok(catalog.names.includes(name), `${name} is in the table`)
  t.match(catalog.info('gpt-4o'), {
    upstreamId: 'gpt-4o',
    inputPerMillion: 2.5,
    cachedInputPerMillion: 1.25,
    maxOutputTokens: 16_384,
    priced: true,
    capabilities: { tools: true, vision: true, json: true, reasoning: false },
  })
  t.match(catalog.info('gpt-4-turbo'), { cachedInputPerMillion: 10 }, 'no prompt caching: the input price')
  t.match(catalog.info('gpt-4.1-mini'), {
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    inputPerMillion: 0.4,
    cachedInputPerMillion: 0.1,
    outputPerMillion: 1.6,
  })
  t.match(catalog.info('gpt-5'), {
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    inputPerMillion: 1.25,
    cachedInputPerMillion: 0.125,
    capabilities: { reasoning: true },
  })
  t.match(catalog.info('o3-mini'), { imageTokens: null, capabilities: { vision: false, reasoning: true } })
  t.match(catalog.info('claude-3-haiku-20240307'), { cachedInputPerMillion: 0.03, cacheWritePerMillion: 0.3, maxOutputTokens: 4096 })
  t.match(catalog.info('claude-3-5-sonnet-20241022'), {
    inputPerMillion: 3,
    cachedInputPerMillion: 0.3,
    cacheWritePerMillion: 3.75,
    outputPerMillion: 15,
    maxOutputTokens: 8192,
  })
  t.match(catalog.info('claude-opus-4-20250514'), { inputPerMillion: 15, cacheWritePerMillion: 18.75, outputPerMillion: 75, maxOutputTokens: 32_000 })
  t.match(catalog.info('mistral-large-latest'), { imageTokens: null, capabilities: { vision: false } })
  t.equal(catalog.info('gpt-4o-mini').created, 1_721_260_800, 'the release day, as /v1/models lists it')
  t.match(catalog.info('text-embedding-3-small'), { dimensions: 1536, inputPerMillion: 0.02, outputPerMillion: 0, contextWindow: 8191 })
  t.equal(catalog.info('gpt-4o').dimensions, null, 'a chat model makes no vectors')
  for (const name of catalog.names) {
    const info = catalog.info(name)
    // An embedding model generates nothing: its output is free.
    const outputPriced = info.dimensions === null ? info.outputPerMillion > 0 : info.outputPerMillion === 0
    t.ok(info.maxOutputTokens <= info.contextWindow && info.inputPerMillion > 0 && outputPriced, `${name}: a bound and prices`)
  }
})

t.test("the providers' aliases stand for their models; a provider prefix names a model of that provider", async (t) => {
  const catalog = built({})
  t.ok(catalog.has('claude-3-5-sonnet-latest'))
  t.equal(catalog.canonical('claude-3-5-sonnet-latest'), 'claude-3-5-sonnet-20241022')
  t.equal(catalog.canonical('claude-sonnet-4-0'), 'claude-sonnet-4-20250514')
  t.equal(catalog.info('claude-3-7-sonnet-latest'), catalog.info('claude-3-7-sonnet-20250219'))
  t.equal(catalog.canonical('openai/gpt-4.1-mini'), 'gpt-4.1-mini')
  t.equal(catalog.canonical('anthropic/claude-3-5-haiku-latest'), 'claude-3-5-haiku-20241022')
  t.notOk(catalog.has('anthropic/gpt-4o'), "a model under another provider's prefix")
  t.notOk(catalog.has('gpt-4.5-preview'), 'an unlisted name, with nothing configured to let it through')
  t.equal(catalog.metricName('claude-3-5-haiku-latest'), 'claude-3-5-haiku-20241022')
})

t.test("a configured model gets the provider's cache shares, its name as upstream id, and image tokens with vision", async (t) => {
  const entry = { contextWindow: 8000, inputPerMillion: 4, outputPerMillion: 8, capabilities }
  const catalog = built({
    models: {
      'house-claude': { ...entry, provider: 'anthropic' },
      'house-gpt': {
        ...entry,
        provider: 'openai',
        upstreamId: 'gpt-4.1',
        cachedInputPerMillion: 1,
        maxOutputTokens: 2000,
        capabilities: { ...capabilities, vision: true },
      },
    },
  })
  t.match(catalog.info('house-claude'), {
    upstreamId: 'house-claude',
    cachedInputPerMillion: 0.4,
    cacheWritePerMillion: 5,
    imageTokens: null,
    created: 0,
    maxOutputTokens: 4096,
  })
  t.match(catalog.info('house-gpt'), { upstreamId: 'gpt-4.1', cachedInputPerMillion: 1, imageTokens: 1600, maxOutputTokens: 2000 })
  t.equal(catalog.names.length, Object.keys(SHIPPED_TABLE.models).length + 2)
})

t.test("an entry under a shipped name replaces it, keeping what it does not restate; pricing overrides a model's prices", async (t) => {
  const catalog = built({
    models: { 'gpt-4o': { provider: 'openai', contextWindow: 64_000, inputPerMillion: 5, outputPerMillion: 20, capabilities } },
    pricing: { 'gpt-4o-mini': { inputPerMillion: 1, outputPerMillion: 2 } },
  })
  t.equal(catalog.names.length, Object.keys(SHIPPED_TABLE.models).length)
  t.match(catalog.info('gpt-4o'), {
    contextWindow: 64_000,
    inputPerMillion: 5,
    cachedInputPerMillion: 2.5,
    maxOutputTokens: 16_384,
    created: SHIPPED_TABLE.models['gpt-4o']!.created,
  })
  t.match(catalog.info('gpt-4o-mini'), { inputPerMillion: 1, outputPerMillion: 2, cachedInputPerMillion: 0.5, contextWindow: 128_000 })
})

t.test("configured aliases: to a model of the table, never a tier's or a model's name", async (t) => {
  const catalog = built({ aliases: { fast: 'gpt-4.1-mini', 'claude-3-5-sonnet-latest': 'claude-sonnet-4-20250514' } })
  t.equal(catalog.canonical('fast'), 'gpt-4.1-mini')
  t.equal(catalog.canonical('claude-3-5-sonnet-latest'), 'claude-sonnet-4-20250514', 'the config may point a shipped alias elsewhere')
  t.equal(problem({ aliases: { cheap: 'gpt-4o' } }), "aliases.cheap: an alias may not take a tier's name")
  t.match(problem({ aliases: { 'gpt-4o': 'gpt-4.1' } }), /^aliases\.gpt-4o: an alias may not take a model's name/)
  t.match(problem({ aliases: { fast: 'gpt-9' } }), /^aliases\.fast: no such model gpt-9 \(known: gpt-4o, /)
  const shadowing = built({
    models: { 'claude-opus-4-0': { provider: 'anthropic', contextWindow: 200_000, inputPerMillion: 1, outputPerMillion: 2, capabilities } },
  })
  t.equal(shadowing.canonical('claude-opus-4-0'), 'claude-opus-4-0', "a configured model that takes a shipped alias's name wins")
  t.equal(shadowing.info('claude-opus-4-0').inputPerMillion, 1)
  t.notOk(shadowing.aliases.has('claude-opus-4-0'))
})

t.test("names let through unpriced: by pattern, with or without the provider's prefix, never priced", async (t) => {
  const catalog = built({ unpricedModels: { openai: ['gpt-4.5-*', 'ft:*'], anthropic: ['claude-*'], mistral: ['*'] } })
  t.match(catalog.info('gpt-4.5-preview'), { provider: 'openai', upstreamId: 'gpt-4.5-preview', priced: false, inputPerMillion: 0, outputPerMillion: 0 })
  t.match(catalog.info('openai/gpt-4.5-preview'), { provider: 'openai', upstreamId: 'gpt-4.5-preview', priced: false })
  t.match(catalog.info('ft:gpt-4o-mini:acme:support:abc123'), { provider: 'openai', upstreamId: 'ft:gpt-4o-mini:acme:support:abc123' })
  t.match(catalog.info('claude-fable-5-1'), { provider: 'anthropic', upstreamId: 'claude-fable-5-1' })
  t.match(catalog.info('devstral-medium-latest'), { provider: 'mistral' }, 'a bare name goes to the first provider whose patterns match it')
  t.match(catalog.info('mistral/gpt-4.5-preview'), { provider: 'mistral', upstreamId: 'gpt-4.5-preview' }, 'a prefix chooses the provider')
  t.equal(catalog.canonical('gpt-4.5-preview'), 'gpt-4.5-preview', 'kept as the client named it')
  t.equal(catalog.metricName('gpt-4.5-preview'), 'unpriced', 'clients choose these names: metrics do not label by them')
  t.equal(catalog.info('gpt-4o').priced, true, "the table's models stay priced")
  t.notOk(catalog.has('openai/o9'), "a prefixed name its provider's patterns do not match")
  t.notOk(catalog.has('has spaces'), 'only what a model id is made of')
  t.match(catalog.unpricedPatterns, 'openai: gpt-4.5-*, ft:*; anthropic: claude-*; mistral: *')
})

t.test('cost: fresh input, cached reads, cache writes and output each at their price', async (t) => {
  const prices = { inputPerMillion: 4, outputPerMillion: 8, cachedInputPerMillion: 1, cacheWritePerMillion: 5 }
  t.equal(costDollars(prices, { promptTokens: 1_000_000, completionTokens: 0 }), 4)
  t.equal(
    costDollars(prices, { promptTokens: 1_000_000, completionTokens: 1_000_000, cachedInputTokens: 500_000, cacheWriteTokens: 250_000 }),
    1 + 0.5 + 1.25 + 8,
  )
})
