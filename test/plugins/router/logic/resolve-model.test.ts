import t from 'tap'
import { modelCatalog } from '../../../../proxy/pipeline/catalog.ts'
import type { ProviderName } from '../../../../proxy/pipeline/models.ts'
import { resolveTargets, servingProvider, type RoutingRules } from '../../../../plugins/router/logic/resolve-model.ts'
import { buildRouteTable } from '../../../../plugins/router/logic/route-table.ts'
import { SPEC_TIERS } from '../../../../plugins/router/schema.ts'
import { createLocalAdapter } from '../../../../plugins/router/providers/local.ts'

const all: RoutingRules = { configured: new Set<ProviderName>(['openai', 'anthropic', 'mistral']), tiers: SPEC_TIERS, fallback: {}, fallbacks: {} }
const none: RoutingRules = { ...all, configured: new Set<ProviderName>() }
const catalog = modelCatalog()

t.test("routes each tier to its model and that model's provider", async (t) => {
  t.same(resolveTargets({ quality: 'cheap' }, false, all, catalog), [{ provider: 'anthropic', model: 'claude-3-haiku-20240307' }])
  t.same(resolveTargets({ quality: 'balanced' }, false, all, catalog), [{ provider: 'openai', model: 'gpt-4o-mini' }])
  t.same(resolveTargets({ quality: 'frontier' }, false, all, catalog), [{ provider: 'openai', model: 'gpt-4o' }])
})

t.test('routes a tier wherever the configuration points it', async (t) => {
  const rules: RoutingRules = { ...all, tiers: { ...SPEC_TIERS, cheap: 'mistral-medium-latest' } }
  t.same(resolveTargets({ quality: 'cheap' }, false, rules, catalog), [{ provider: 'mistral', model: 'mistral-medium-latest' }])
  t.same(resolveTargets({ quality: 'balanced' }, false, rules, catalog), [{ provider: 'openai', model: 'gpt-4o-mini' }], 'the other tiers keep theirs')
})

t.test('uses an explicit model instead of the tier', async (t) => {
  t.same(resolveTargets({ model: 'mistral-large-latest', quality: 'cheap' }, false, all, catalog), [{ provider: 'mistral', model: 'mistral-large-latest' }])
})

t.test('serves every model with the local provider for a test-mode key', async (t) => {
  t.same(resolveTargets({ quality: 'frontier' }, true, all, catalog), [{ provider: 'local', model: 'gpt-4o' }])
  t.equal(servingProvider('claude-3-opus-20240229', true, all.configured, catalog), 'local')
})

t.test('serves a model with the local provider when its provider has no API key', async (t) => {
  const openaiOnly = new Set<ProviderName>(['openai'])
  t.equal(servingProvider('claude-3-haiku-20240307', false, openaiOnly, catalog), 'local')
  t.equal(servingProvider('gpt-4o', false, openaiOnly, catalog), 'openai')
  t.same(resolveTargets({ quality: 'balanced' }, false, none, catalog), [{ provider: 'local', model: 'gpt-4o-mini' }])
})

t.test("adds the tier's fallback after the tier's model, only for tier-routed requests", async (t) => {
  const rules: RoutingRules = { ...all, fallback: { balanced: 'claude-3-haiku-20240307' } }
  t.same(resolveTargets({ quality: 'balanced' }, false, rules, catalog), [
    { provider: 'openai', model: 'gpt-4o-mini' },
    { provider: 'anthropic', model: 'claude-3-haiku-20240307' },
  ])
  t.same(resolveTargets({ model: 'gpt-4o-mini', quality: 'balanced' }, false, rules, catalog), [{ provider: 'openai', model: 'gpt-4o-mini' }])
  t.same(resolveTargets({ quality: 'frontier' }, false, rules, catalog), [{ provider: 'openai', model: 'gpt-4o' }], 'other tiers keep no fallback')
})

t.test('drops a fallback that would only repeat the primary', async (t) => {
  const rules: RoutingRules = { ...all, fallback: { cheap: 'claude-3-haiku-20240307' } }
  t.same(resolveTargets({ quality: 'cheap' }, false, rules, catalog), [{ provider: 'anthropic', model: 'claude-3-haiku-20240307' }])
})

t.test('a named model is followed by its configured fallbacks, in order, each once, then the tier fallback only for a tier', async (t) => {
  const rules: RoutingRules = {
    ...all,
    fallback: { frontier: 'mistral-large-latest' },
    fallbacks: { 'gpt-4o': ['claude-3-haiku-20240307', 'gpt-4o', 'mistral-large-latest'] },
  }
  t.same(
    resolveTargets({ model: 'gpt-4o', quality: 'balanced' }, false, rules, catalog).map((target) => `${target.provider}/${target.model}`),
    ['openai/gpt-4o', 'anthropic/claude-3-haiku-20240307', 'mistral/mistral-large-latest'],
  )
  t.same(
    resolveTargets({ quality: 'frontier' }, false, rules, catalog).map((target) => target.model),
    ['gpt-4o', 'claude-3-haiku-20240307', 'mistral-large-latest'],
  )
  t.same(
    resolveTargets({ model: 'gpt-4o-mini', quality: 'balanced' }, false, rules, catalog).map((target) => target.model),
    ['gpt-4o-mini'],
  )
})

t.test('builds one plan per choice with the smallest context window among its candidates', async (t) => {
  const local = createLocalAdapter({ chunkDelayMs: 0, catalog })
  const table = buildRouteTable({ local }, { tiers: SPEC_TIERS, fallback: { balanced: 'claude-3-haiku-20240307' }, fallbacks: {} }, catalog)
  const plan = table.planFor({ quality: 'balanced' }, false)
  t.same(
    plan.candidates.map((c) => `${c.provider}/${c.model}`),
    ['local/gpt-4o-mini', 'local/claude-3-haiku-20240307'],
  )
  t.equal(plan.primary, plan.candidates[0])
  t.equal(plan.contextWindow, 128_000)
  t.equal(table.planFor({ quality: 'balanced' }, false), plan, 'plans are built once, not per request')
  t.equal(table.planFor({ model: 'claude-3-opus-20240229', quality: 'balanced' }, true).contextWindow, 200_000)
})
