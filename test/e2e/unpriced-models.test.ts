// A name the model table does not list: refused with the known names, or, where the config's
// unpricedModels lets it through, served, charged nothing and recorded as unpriced (on the
// ledger, in /api/usage and in a metric), while its budget hold is the configured ceiling.
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import t from 'tap'
import { call } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'
import { until } from '../helpers/until.ts'

const question = { role: 'user' as const, content: 'Hello there.' }
const LET_THROUGH = { unpricedModels: { openai: ['gpt-4.5-*'], anthropic: ['claude-fable-*'] } }

t.test('an unlisted name is refused with 400 and the names the gateway knows, in each dialect', async (t) => {
  const { url, dataDir } = await startTestGateway(t)
  const key = (await seedProject(dataDir)).keys[0]!.key
  const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })
  try {
    await openai.chat.completions.create({ model: 'gpt-4.5-preview', messages: [question] })
    t.fail('expected a 400')
  } catch (err) {
    t.ok(err instanceof OpenAI.BadRequestError)
    t.match(
      (err as InstanceType<typeof OpenAI.BadRequestError>).message,
      /model must be one of gpt-4o, gpt-4o-mini, .*gpt-5, .*claude-3-5-sonnet-20241022, .*balanced, frontier \(GET \/v1\/models lists them with their aliases\)/,
    )
  }
  const anthropic = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 })
  try {
    await anthropic.messages.create({ model: 'claude-fable-5-1', max_tokens: 50, messages: [question] })
    t.fail('expected a 400')
  } catch (err) {
    t.ok(err instanceof Anthropic.BadRequestError)
  }
  const native = await call(`${url}/api/ai/complete`, { key, body: { model: 'gpt-4.5-preview', messages: [question] } })
  t.equal(native.status, 400)
  t.match(native.body.message, /model must be one of gpt-4o, .*claude-sonnet-4-20250514, /)
})

t.test('a name unpricedModels lets through is served, charged nothing and recorded as unpriced', async (t) => {
  const { url, dataDir } = await startTestGateway(t, { overrides: LET_THROUGH })
  const { projectId, keys } = await seedProject(dataDir)
  const key = keys[0]!.key
  const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })
  const { data, response } = await openai.chat.completions.create({ model: 'gpt-4.5-preview', messages: [question] }).withResponse()
  t.equal(data.model, 'gpt-4.5-preview')
  t.equal(response.headers.get('x-gateway-model'), 'local/gpt-4.5-preview')
  t.equal(response.headers.get('x-credits-charged'), '0.000000')
  const anthropic = new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 })
  const message = await anthropic.messages.create({ model: 'anthropic/claude-fable-5-1', max_tokens: 50, messages: [question] })
  t.equal(message.model, 'anthropic/claude-fable-5-1')

  let usage: any
  await until(async () => {
    usage = (await call(`${url}/api/usage?projectId=${projectId}`, { key })).body
    return usage.models?.['anthropic/claude-fable-5-1'] !== undefined
  }, 'the usage of both requests')
  t.match(usage.models['gpt-4.5-preview'], { requests: 1, cost: 0, unpriced: 1 }, 'never silently free: the entry says unpriced')
  t.match(usage.models['anthropic/claude-fable-5-1'], { requests: 1, cost: 0, unpriced: 1 })
  t.equal(usage.budget.used, 0)

  const metrics = await call(`${url}/metrics`)
  t.match(metrics.body, /tollgate_unpriced_requests_total\{provider="local"\} 2/)
  t.match(metrics.body, /tollgate_tokens_total\{provider="local",model="unpriced",direction="output"\} \d+/, 'metrics do not label by names clients choose')
  t.notMatch(metrics.body, /model="gpt-4\.5-preview"/)
})

t.test('a request to an unpriced name holds the configured ceiling of the budget', async (t) => {
  const { url, dataDir } = await startTestGateway(t, { overrides: { ...LET_THROUGH, plugins: { metering: { unpricedHoldDollars: 0.5 } } } })
  const key = (await seedProject(dataDir, { budgetDollars: 0.25 })).keys[0]!.key
  const body = (model: string) => ({ model, messages: [question], maxTokens: 50 })
  const unpriced = await call(`${url}/api/ai/complete`, { key, body: body('gpt-4.5-preview') })
  t.equal(unpriced.status, 402, 'its cost is not known: the ceiling of $0.50 does not fit $0.25')
  t.match(unpriced.body, { error: 'Budget exceeded' })
  const priced = await call(`${url}/api/ai/complete`, { key, body: body('gpt-4.1-mini') })
  t.equal(priced.status, 200, 'a priced model holds its own worst case')
})

t.test('a provider prefix is taken off the name sent upstream', async (t) => {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const key = (await seedProject(dataDir)).keys[0]!.key
  const { url } = await startTestGateway(t, { dataDir, env: { OPENAI_API_KEY: 'sk-upstream', OPENAI_BASE_URL: mock.url }, overrides: LET_THROUGH })
  const openai = new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })
  const answer = await openai.chat.completions.create({ model: 'openai/gpt-4.5-preview', messages: [question] })
  t.equal(answer.choices[0]?.message.content, 'Echo: Hello there.')
  t.equal((mock.requests.at(-1)!.body as { model: string }).model, 'gpt-4.5-preview')
  await openai.chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [question] })
  t.equal((mock.requests.at(-1)!.body as { model: string }).model, 'gpt-4.1-mini', 'a prefixed model of the table is that model')
})
