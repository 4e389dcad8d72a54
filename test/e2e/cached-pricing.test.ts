// Cached input reported by the providers is metered at its own prices, and a request's cost is one
// figure: the answer's costCents, x-credits-charged and the ledger's entry agree.
import t, { type Test } from 'tap'
import { call, hello, parseSse } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'
import { openStore } from '../../proxy/stores/store.ts'
import { createLedger } from '../../plugins/metering/store/lmdb/ledger.ts'
import { builtinPlugins } from '../../plugins/index.ts'
import type { StartOptions } from '../../proxy/index.ts'

async function setup(t: Test, promptCache: { read: number; write?: number }, overrides: Record<string, unknown> = {}, plugins?: StartOptions['plugins']) {
  const mock = await startMockUpstream({ promptCache })
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const env = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-openai', ANTHROPIC_BASE_URL: mock.url, ANTHROPIC_API_KEY: 'test-anthropic' }
  const { url, gateway } = await startTestGateway(t, { dataDir, env, overrides, ...(plugins !== undefined && { plugins }) })
  // The ledger is read once the gateway has stopped: one process opens the store once.
  const expected: Array<[id: string, entry: object, name: string]> = []
  const inLedger = (id: string, entry: object, name = 'the ledger holds the same figure') => expected.push([id, entry, name])
  const checkLedger = async () => {
    await gateway.close()
    const store = openStore(dataDir)
    t.teardown(() => store.close())
    const ledger = createLedger(store.forPlugin('metering'))
    for (const [id, entry, name] of expected) t.match(ledger.entry(id), entry, name)
  }
  return { url, key: seeded.keys[0]!.key, inLedger, checkLedger, mock }
}

const NO_STORE = { 'cache-control': 'no-store' }

/** Cents as the answer carries them: whole micro-dollars. */
const cents = (perMillion: number) => Math.round((perMillion / 1e4) * 1e4) / 1e4

/** The answer of a complete (JSON) or chat (SSE, its done event) request, with its charge header. */
async function ask(url: string, key: string, route: 'complete' | 'chat', model: string) {
  // Identical requests: without no-store the gateway's own cache would answer the second.
  const res = await call(`${url}/api/ai/${route}`, { key, body: { ...hello, model }, headers: NO_STORE })
  const answer = route === 'complete' ? res.body : parseSse(res.body).at(-1)!.data
  const charged = route === 'complete' ? res.headers['x-credits-charged'] : res.trailers['x-credits-charged']
  return { status: res.status, id: res.headers['x-request-id']!, usage: answer.usage, charged: Number(charged) }
}

t.test('OpenAI: cached tokens are part of prompt_tokens and are charged at the cached price (half the input price for gpt-4o-mini)', async (t) => {
  const { url, key, inLedger, checkLedger } = await setup(t, { read: 6 })
  for (const route of ['complete', 'chat'] as const) {
    const res = await ask(url, key, route, 'gpt-4o-mini')
    t.equal(res.status, 200)
    const { promptTokens, completionTokens, costCents } = res.usage
    t.ok(promptTokens > 6)
    t.equal(costCents, cents((promptTokens - 6) * 0.15 + 6 * 0.075 + completionTokens * 0.6), route)
    t.equal(res.charged, costCents / 100, `${route}: the header says the answer's cost`)
    inLedger(
      res.id,
      { promptTokens, completionTokens, cachedInputTokens: 6, cacheWriteTokens: undefined, costMicros: Math.round(costCents * 1e4) },
      `${route}: the ledger holds the same figure`,
    )
  }
  await checkLedger()
})

t.test('Anthropic: cache reads and writes come beside input_tokens and are charged at a tenth and 1.25 times the input price', async (t) => {
  const { url, key, inLedger, checkLedger } = await setup(t, { read: 5, write: 3 })
  for (const route of ['complete', 'chat'] as const) {
    const res = await ask(url, key, route, 'claude-3-haiku-20240307')
    t.equal(res.status, 200)
    const { promptTokens, completionTokens, costCents } = res.usage
    t.equal(costCents, cents((promptTokens - 8) * 0.25 + 5 * 0.025 + 3 * 0.3125 + completionTokens * 1.25), route)
    t.equal(res.charged, costCents / 100, route)
    inLedger(res.id, { promptTokens, completionTokens, cachedInputTokens: 5, cacheWriteTokens: 3, costMicros: Math.round(costCents * 1e4) }, route)
  }
  await checkLedger()
})

t.test('configured cached prices replace the defaults', async (t) => {
  const pricing = { 'gpt-4o-mini': { inputPerMillion: 1, outputPerMillion: 2, cachedInputPerMillion: 0 } }
  const { url, key, inLedger, checkLedger } = await setup(t, { read: 6 }, { pricing })
  const res = await call(`${url}/api/ai/complete`, { key, body: { ...hello, model: 'gpt-4o-mini' } })
  const { promptTokens, completionTokens, costCents } = res.body.usage
  t.equal(costCents, cents((promptTokens - 6) * 1 + completionTokens * 2))
  inLedger(res.headers['x-request-id']!, { costMicros: Math.round(costCents * 1e4) })
  await checkLedger()
})

t.test('without metering the answer still reports its list price, and the header the same figure', async (t) => {
  const { url, key } = await setup(
    t,
    { read: 6 },
    {},
    builtinPlugins.filter((plugin) => plugin.name !== 'metering' && plugin.name !== 'passthrough'),
  )
  const res = await call(`${url}/api/ai/complete`, { key, body: { ...hello, model: 'gpt-4o-mini' } })
  const { promptTokens, completionTokens, costCents } = res.body.usage
  t.equal(costCents, cents((promptTokens - 6) * 0.15 + 6 * 0.075 + completionTokens * 0.6))
  t.equal(Number(res.headers['x-credits-charged']), costCents / 100)
})

t.test('a fallback that serves is the model the answer, its price and the ledger name', async (t) => {
  const { url, key, inLedger, checkLedger, mock } = await setup(
    t,
    { read: 0 },
    { plugins: { router: { retry: { attempts: 0, baseDelayMs: 0, maxDelayMs: 0 }, fallback: { balanced: 'claude-3-haiku-20240307' } } } },
  )
  for (const route of ['complete', 'chat'] as const) {
    mock.fail('server-error', 1)
    const res = await call(`${url}/api/ai/${route}`, { key, body: hello, headers: NO_STORE })
    t.equal(res.status, 200)
    t.equal(res.headers['x-gateway-model'], 'anthropic/claude-3-haiku-20240307', route)
    const answer = route === 'complete' ? res.body : parseSse(res.body).at(-1)!.data
    t.match(answer, { provider: 'anthropic', model: 'claude-3-haiku-20240307' }, route)
    const { promptTokens, completionTokens, costCents } = answer.usage
    t.equal(costCents, cents(promptTokens * 0.25 + completionTokens * 1.25), `${route}: priced as the fallback`)
    inLedger(res.headers['x-request-id']!, { provider: 'anthropic', model: 'claude-3-haiku-20240307', costMicros: Math.round(costCents * 1e4) }, route)
  }
  await checkLedger()
})
