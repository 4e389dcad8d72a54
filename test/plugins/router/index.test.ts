import t, { type Test } from 'tap'
import type { z } from 'zod'
import type { ProviderEvent } from '../../../proxy/pipeline/completion.ts'
import { buildCatalog, type ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import { InvalidRequestError, UpstreamError, UpstreamInvalidJsonError } from '../../../proxy/pipeline/errors.ts'
import type { Reply } from '../../../proxy/http/reply.ts'
import router from '../../../plugins/router/index.ts'
import { MESSAGE_OVERHEAD_TOKENS } from '../../../plugins/router/logic/context-window.ts'
import { toJsonText } from '../../../plugins/router/logic/json-answer.ts'
import { INLINE_MESSAGE_CHARS } from '../../../plugins/router/count-content-tokens.ts'
import { routerSchema } from '../../../plugins/router/schema.ts'
import type { RouteDecision } from '../../../plugins/router/state.ts'
import { countTokens } from '../../../workers/count-tokens.ts'
import { startMockUpstream, type MockUpstream } from '../../helpers/mock-upstream.ts'
import { CHAT_ROUTE, makeContext, type ContextOverrides } from '../../helpers/make-context.ts'
import { TEST_KEY, assistant, authState, caught, collect, inlinePool, pluginDeps, startRouter, system, user } from './fixtures.ts'

async function decide(t: Test, config: z.input<typeof routerSchema>, overrides: ContextOverrides = {}) {
  const hooks = await startRouter(t, config)
  const ctx = makeContext({ state: { auth: authState(false) }, ...overrides })
  const reply = (await hooks.onRequest?.(ctx)) as Reply | undefined
  return { ctx, reply, decision: ctx.state.router }
}

function decisionOf(ctx: RequestContext): RouteDecision {
  const decision = ctx.state.router
  if (decision === undefined) throw new Error('the router decided nothing')
  return decision
}

async function withMock(t: Test): Promise<MockUpstream> {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  return mock
}

function providersAt(mock: MockUpstream) {
  return {
    openai: { baseUrl: mock.url, apiKey: TEST_KEY },
    anthropic: { baseUrl: mock.url, apiKey: TEST_KEY },
    mistral: { baseUrl: mock.url, apiKey: TEST_KEY },
  }
}

t.test('declares itself as the router after auth, on AI routes only', async (t) => {
  t.equal(router.name, 'router')
  t.equal(router.order, 250)
  t.same(router.gates, ['ai'])
})

t.test('routes a balanced request to openai/gpt-4o-mini when OpenAI has a key, and says so in headers', async (t) => {
  const content = 'What is the capital of France?'
  const { ctx, reply, decision } = await decide(t, { providers: { openai: { apiKey: TEST_KEY } } }, { ai: { messages: [user(content)] } })
  const promptTokens = countTokens(content) + MESSAGE_OVERHEAD_TOKENS
  t.equal(reply, undefined)
  t.match(decision, { provider: 'openai', model: 'gpt-4o-mini', trimmedMessages: 0, promptTokens, messages: [user(content)] })
  t.same(ctx.responseHeaders, { 'x-gateway-model': 'openai/gpt-4o-mini', 'x-gateway-prompt-tokens': String(promptTokens) })
})

t.test('serves with the local provider for a dev key even when the provider has a key', async (t) => {
  const { ctx, decision } = await decide(t, { providers: { openai: { apiKey: TEST_KEY } } }, { state: { auth: authState(true) } })
  t.equal(decision?.provider, 'local')
  t.equal(ctx.responseHeaders['x-gateway-model'], 'local/gpt-4o-mini')
})

t.test("serves with the local provider when the model's provider has no key", async (t) => {
  const { ctx, decision } = await decide(t, { providers: { openai: { apiKey: TEST_KEY } } }, { ai: { quality: 'cheap', messages: [user('Hi')] } })
  t.match(decision, { provider: 'local', model: 'claude-3-haiku-20240307' })
  t.equal(ctx.responseHeaders['x-gateway-model'], 'local/claude-3-haiku-20240307')
})

t.test('routes an explicit model instead of the tier', async (t) => {
  const { decision } = await decide(
    t,
    { providers: { mistral: { apiKey: TEST_KEY } } },
    { ai: { quality: 'frontier', model: 'mistral-medium-latest', messages: [user('Hi')] } },
  )
  t.match(decision, { provider: 'mistral', model: 'mistral-medium-latest' })
})

t.test('drops old messages to fit the context window and says how many in x-gateway-context-trimmed', async (t) => {
  // About 40,000 tokens each: three of them and maxTokens overflow gpt-4o's 128,000; two fit.
  const long = 'lorem ipsum '.repeat(20_000)
  const messages = [system('Be brief.'), user(long), assistant(long), user(long), assistant('ok'), user('And now?')]
  const { ctx, decision } = await decide(t, {}, { ai: { messages, maxTokens: 32_768, model: 'gpt-4o' } })
  t.same(decision?.messages, [system('Be brief.'), assistant(long), user(long), assistant('ok'), user('And now?')])
  t.equal(decision?.trimmedMessages, 1)
  t.equal(ctx.responseHeaders['x-gateway-context-trimmed'], '1')
  t.ok((decision?.promptTokens ?? 0) + 32_768 <= 128_000)
  t.equal(ctx.responseHeaders['x-gateway-prompt-tokens'], String(decision?.promptTokens))
})

t.test('answers 400 Context too long with the numbers when the last message alone does not fit', async (t) => {
  const { reply, decision } = await decide(
    t,
    {},
    { ai: { messages: [system('Be brief.'), user('Hi'), user('lorem ipsum '.repeat(50_000))], maxTokens: 32_768 } },
  )
  t.equal(decision, undefined)
  t.equal(reply?.kind, 'error')
  const error = reply?.kind === 'error' ? reply.error : undefined
  t.ok(error instanceof InvalidRequestError)
  t.equal(error?.status, 400)
  t.equal(error?.error, 'Context too long')
  t.match(error?.message, /need \d+ tokens and maxTokens asks for 32768 more, but gpt-4o-mini holds 128000 tokens/)
})

t.test('counts long messages in the worker pool only once the request is admitted, holding the byte bound until then', async (t) => {
  const pool = inlinePool()
  const hooks = await startRouter(t, {}, pool)
  const long = 'x '.repeat(INLINE_MESSAGE_CHARS)
  const ctx = makeContext({ ai: { messages: [user('short'), user(long)] } })
  await hooks.onRequest?.(ctx)
  t.same(pool.counted, [], 'nothing is tokenized in the pool before admission')
  const bound = decisionOf(ctx).promptTokensBound
  t.ok(bound >= Buffer.byteLength(long) + 5, 'the bound covers every byte')
  t.equal(decisionOf(ctx).promptTokens, bound)
  t.notOk('x-gateway-prompt-tokens' in ctx.responseHeaders)
  await decisionOf(ctx).call.complete(ctx.signal)
  t.same(pool.counted, [long], 'the long message is counted in the pool, the short one inline')
  const counted = countTokens('short') + countTokens(long) + 2 * MESSAGE_OVERHEAD_TOKENS
  t.equal(decisionOf(ctx).promptTokens, counted)
  t.equal(ctx.responseHeaders['x-gateway-prompt-tokens'], String(counted))
})

/**
 * The shipped table with gpt-4o-mini sent upstream as `ft-house`, and one more model, `house-chat`.
 * The request names a shipped model: requests are parsed by the table in force in the process.
 */
function houseCatalog(): ModelCatalog {
  const entry = {
    provider: 'openai',
    upstreamId: 'ft-house',
    contextWindow: 16_000,
    inputPerMillion: 1,
    outputPerMillion: 2,
    capabilities: { tools: true, vision: false, json: true, reasoning: false },
  } as const
  const catalog = buildCatalog({
    models: { 'gpt-4o-mini': entry, 'house-chat': entry },
    pricing: {},
    aliases: {},
    unpricedModels: { openai: [], anthropic: [], mistral: [] },
  })
  if ('path' in catalog) throw new Error(catalog.message)
  return catalog
}

t.test('routes, calls and lists by the model table its deps give', async (t) => {
  const mock = await withMock(t)
  const hooks = await router.setup(routerSchema.parse({ providers: providersAt(mock), retry: { baseDelayMs: 0, maxDelayMs: 0 } }), {
    ...pluginDeps(),
    catalog: houseCatalog(),
  })
  t.teardown(() => hooks.close?.())
  const ctx = makeContext({ state: { auth: authState(false) }, ai: { model: 'gpt-4o-mini', messages: [user('Hello')] } })
  t.equal(await hooks.onRequest?.(ctx), undefined)
  await decisionOf(ctx).call.complete(ctx.signal)
  t.match(mock.requests[0]?.body, { model: 'ft-house' }, "the provider is sent the model's upstream id")
  const models = hooks.routes?.find((route) => route.path === '/v1/models')?.handle(makeContext())
  const ids = (models as { body: { data: { id: string }[] } }).body.data.map((model) => model.id)
  t.ok(ids.includes('house-chat'), '/v1/models lists the configured model')
})

t.test("calls the decided provider with the request's messages, temperature and maxTokens, and returns its answer, usage and finish reason", async (t) => {
  const mock = await withMock(t)
  const { ctx } = await decide(t, { providers: providersAt(mock) }, { ai: { messages: [user('Hello')], maxTokens: 50, temperature: 0.3 } })
  const result = await decisionOf(ctx).call.complete(ctx.signal)
  t.same(result, { text: 'Echo: Hello', usage: { promptTokens: 5, completionTokens: 3 }, finishReason: 'stop' })
  t.match(mock.requests[0]?.body, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], max_completion_tokens: 50, temperature: 0.3 })
})

t.test("the spec's endpoints send their default temperature and maxTokens, but no temperature to a reasoning model", async (t) => {
  const mock = await withMock(t)
  const plain = await decide(t, { providers: providersAt(mock) }, { ai: { messages: [user('Hello')], model: 'gpt-4.1-mini' } })
  await decisionOf(plain.ctx).call.complete(plain.ctx.signal)
  t.match(mock.requests.at(-1)?.body, { model: 'gpt-4.1-mini', temperature: 0.7, max_completion_tokens: 1000 })
  const reasoning = await decide(t, { providers: providersAt(mock) }, { ai: { messages: [user('Hello')], model: 'gpt-5' } })
  const answer = await decisionOf(reasoning.ctx).call.complete(reasoning.ctx.signal)
  t.equal(answer.text, 'Echo: Hello', 'the reasoning model answers')
  t.notOk('temperature' in (mock.requests.at(-1)!.body as object))
  t.match(mock.requests.at(-1)?.body, { model: 'gpt-5', max_completion_tokens: 1000 })
  const chosen = await decide(t, { providers: providersAt(mock) }, { ai: { messages: [user('Hello')], model: 'gpt-5', temperature: 1 } })
  await decisionOf(chosen.ctx).call.complete(chosen.ctx.signal)
  t.match(mock.requests.at(-1)?.body, { temperature: 1 }, 'a temperature the client sets is sent')
})

t.test("the answer's bound: the client's maximum, else the longest answer the model gives", async (t) => {
  const { decision } = await decide(t, {}, { ai: { messages: [user('Hello')], model: 'gpt-4.1-mini', maxTokens: 321 } })
  t.equal(decision?.maxTokens, 321)
  const { ctx } = await decide(t, {}, { ai: { messages: [user('Hello')], model: 'claude-3-5-sonnet-latest' } })
  t.match(decisionOf(ctx), { model: 'claude-3-5-sonnet-20241022' }, 'an alias is routed as its model')
  const hooks = await startRouter(t, {})
  const unbounded = makeContext({ state: { auth: authState(false) }, ai: { messages: [user('Hello')], model: 'o3' } })
  const ai = unbounded.ai!
  const sent = { ...unbounded, ai: { ...ai, maxTokens: undefined } }
  await hooks.onRequest?.(sent)
  t.equal(sent.state.router?.maxTokens, 100_000, "o3's longest answer")
})

t.test('reports the fallback model in the answer and x-gateway-model when it serves a completion', async (t) => {
  const mock = await withMock(t)
  const { ctx } = await decide(t, { providers: providersAt(mock), fallback: { balanced: 'claude-3-haiku-20240307' } })
  mock.fail('server-error', 3)
  const result = await decisionOf(ctx).call.complete(ctx.signal)
  t.equal(result.text, 'Echo: Hello there.')
  t.same(result.servedBy, { provider: 'anthropic', model: 'claude-3-haiku-20240307' })
  t.match(decisionOf(ctx), { provider: 'openai', model: 'gpt-4o-mini' }, "the decision stays the router's choice")
  t.equal(ctx.responseHeaders['x-gateway-model'], 'anthropic/claude-3-haiku-20240307')
})

t.test('announces the fallback with a served event and switches x-gateway-model before the first streamed event', async (t) => {
  const mock = await withMock(t)
  const { ctx } = await decide(t, { providers: providersAt(mock), fallback: { balanced: 'mistral-large-latest' } }, { route: CHAT_ROUTE })
  mock.fail('server-error', 3)
  const events = decisionOf(ctx).call.stream(ctx.signal)[Symbol.asyncIterator]()
  const first = await events.next()
  t.equal(first.done, false)
  t.equal(ctx.responseHeaders['x-gateway-model'], 'mistral/mistral-large-latest', 'already set when the first event arrives')
  t.same(first.value?.[0], { type: 'served', provider: 'mistral', model: 'mistral-large-latest' })
  t.equal(decisionOf(ctx).model, 'gpt-4o-mini', "the decision stays the router's choice")
  const rest: ProviderEvent[] = [...(first.value ?? []).slice(1)]
  for (let step = await events.next(); step.done !== true; step = await events.next()) rest.push(...step.value)
  t.same(rest.at(-1), { type: 'usage', usage: { promptTokens: 6, completionTokens: 5 } })
})

t.test('gives an explicit model no fallback', async (t) => {
  const mock = await withMock(t)
  const { ctx } = await decide(
    t,
    { providers: providersAt(mock), fallback: { balanced: 'claude-3-haiku-20240307' } },
    { ai: { model: 'gpt-4o-mini', messages: [user('Hi')] } },
  )
  mock.fail('server-error', 3)
  const err = await caught(decisionOf(ctx).call.complete(ctx.signal))
  t.ok(err instanceof UpstreamError)
  t.equal(mock.requests.length, 3)
  t.equal(ctx.responseHeaders['x-gateway-model'], 'openai/gpt-4o-mini')
})

t.test('rejects a json-mode answer that does not parse with UpstreamInvalidJsonError, without retrying', async (t) => {
  const mock = await withMock(t)
  const { ctx } = await decide(t, { providers: providersAt(mock) }, { ai: { mode: 'json', messages: [user('Give me JSON')] } })
  mock.fail('invalid-json')
  const err = await caught(decisionOf(ctx).call.complete(ctx.signal))
  t.ok(err instanceof UpstreamInvalidJsonError)
  t.equal((err as UpstreamInvalidJsonError).status, 502)
  t.equal(mock.requests.length, 1)
})

t.test('returns the JSON inside a fenced json-mode answer', async (t) => {
  t.equal(toJsonText('```json\n{"a": 1}\n```'), '{"a": 1}')
  t.equal(toJsonText('  {"a": 1}\n'), '{"a": 1}')
  t.equal(toJsonText('Here you go: {"a": 1}'), undefined)
})

t.test("serves a dev key's json-mode completion locally with valid JSON and usage", async (t) => {
  const { ctx } = await decide(t, {}, { state: { auth: authState(true) }, ai: { mode: 'json', maxTokens: 200, messages: [user('List three colours.')] } })
  const result = await decisionOf(ctx).call.complete(ctx.signal)
  t.type(JSON.parse(result.text).answer, 'string')
  t.same(result.usage, { promptTokens: decisionOf(ctx).promptTokens, completionTokens: countTokens(result.text) })
  t.ok((result.usage?.completionTokens ?? Infinity) <= 200)
})

t.test('streams a local answer in several chunks through the decided call', async (t) => {
  const { ctx } = await decide(t, {}, { route: CHAT_ROUTE })
  const events = await collect(decisionOf(ctx).call.stream(ctx.signal))
  t.ok(events.filter((e) => e.type === 'delta').length >= 3)
  t.equal(events.at(-1)?.type, 'usage')
})
