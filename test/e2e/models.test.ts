// The model table as configuration: a model the config file adds is served by name and by tier,
// listed by /v1/models, sent upstream under its upstream id, and refused what it cannot do.
import t, { type Test } from 'tap'
import { call, hello } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

const MODELS = {
  'house-mini': {
    provider: 'openai',
    upstreamId: 'gpt-4.1-mini',
    contextWindow: 64_000,
    inputPerMillion: 0.4,
    outputPerMillion: 1.6,
    capabilities: { tools: false, vision: false, json: false },
  },
  // A built-in's name: its entry replaces the built-in's.
  'gpt-4o': { provider: 'openai', contextWindow: 128_000, inputPerMillion: 5, outputPerMillion: 20, capabilities: { vision: true } },
}

async function setup(t: Test) {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, {
    dataDir,
    env: { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-openai' },
    overrides: { models: MODELS, plugins: { router: { tiers: { cheap: 'house-mini' } } } },
  })
  return { mock, url, key: seeded.keys[0]!.key }
}

t.test('a configured model is served by its name and by the tier mapped to it, under its upstream id', async (t) => {
  const { mock, url, key } = await setup(t)
  const byName = await call(`${url}/api/ai/complete`, { key, body: { ...hello, model: 'house-mini' } })
  t.equal(byName.status, 200)
  t.match(byName.body, { provider: 'openai', model: 'house-mini' })
  t.equal(byName.headers['x-gateway-model'], 'openai/house-mini')
  t.equal((mock.requests[0]!.body as { model: string }).model, 'gpt-4.1-mini', 'the provider is sent the upstream id')
  const { promptTokens, completionTokens, costCents } = byName.body.usage
  t.equal(costCents, Math.round(((promptTokens * 0.4 + completionTokens * 1.6) / 1e4) * 1e4) / 1e4, 'priced at the configured prices')

  const byTier = await call(`${url}/api/ai/complete`, { key, body: { ...hello, quality: 'cheap' } })
  t.equal(byTier.status, 200)
  t.match(byTier.body, { model: 'house-mini' })

  const replaced = await call(`${url}/api/ai/complete`, { key, body: { ...hello, model: 'gpt-4o' } })
  t.equal(replaced.status, 200)
  const usage = replaced.body.usage
  t.equal(
    usage.costCents,
    Math.round(((usage.promptTokens * 5 + usage.completionTokens * 20) / 1e4) * 1e4) / 1e4,
    'the replaced built-in is priced at its configured prices',
  )
})

t.test('/v1/models lists the configured models and the tiers, and validation reads the same table', async (t) => {
  const { url, key } = await setup(t)
  const list = await call(`${url}/v1/models`, { key })
  t.equal(list.status, 200)
  const ids = list.body.data.map((model: { id: string }) => model.id)
  t.ok(ids.includes('house-mini'), 'the added model is listed')
  t.ok(ids.includes('claude-3-haiku-20240307'), 'the built-ins stay')
  const listed = (id: string) => list.body.data.find((model: { id: string }) => model.id === id)
  t.match(listed('house-mini'), { object: 'model', owned_by: 'openai' })
  t.match(listed('cheap'), { owned_by: 'tollgate', created: 0 }, 'a tier is listed as the model the router sends it to')
  t.match(listed('balanced'), { owned_by: 'tollgate', created: 1_721_260_800 }, "an unconfigured tier keeps the spec's model")
  const one = await call(`${url}/v1/models/house-mini`, { key })
  t.equal(one.status, 200)

  const unknown = await call(`${url}/api/ai/complete`, { key, body: { ...hello, model: 'house-maxi' } })
  t.equal(unknown.status, 400)
  t.match(unknown.body.message, /model must be one of .*house-mini/)
  const viaDialect = await call(`${url}/v1/chat/completions`, { key, body: { model: 'house-mini', messages: hello.messages } })
  t.equal(viaDialect.status, 200, 'the OpenAI dialect takes the configured name')
  t.equal(viaDialect.body.model, 'house-mini')
})

t.test('a request that needs a capability the model lacks is a 400 naming both', async (t) => {
  const { mock, url, key } = await setup(t)
  const json = await call(`${url}/api/ai/complete`, { key, body: { ...hello, model: 'house-mini', mode: 'json' } })
  t.equal(json.status, 400)
  t.match(json.body, { error: 'JSON mode not supported', message: /house-mini does not support the json mode/ })
  const tools = await call(`${url}/v1/chat/completions`, {
    key,
    body: { model: 'house-mini', messages: hello.messages, tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] },
  })
  t.equal(tools.status, 400)
  t.match(JSON.stringify(tools.body), /house-mini does not support tools/)
  const image = await call(`${url}/v1/chat/completions`, {
    key,
    body: {
      model: 'house-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    },
  })
  t.equal(image.status, 400)
  t.match(JSON.stringify(image.body), /house-mini does not support images/)
  t.equal(mock.requests.length, 0, 'nothing reached the provider')
})
