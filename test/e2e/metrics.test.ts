// What an SRE graphs: after known traffic, each counter has moved by exactly that traffic, and
// the exposition passes promtool's checks.
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { call } from '../helpers/http.ts'
import { startMockUpstream } from '../helpers/mock-upstream.ts'
import { freshDataDir, seedProject, startTestGateway } from '../helpers/start-gateway.ts'

const PROMTOOL_MISSING = spawnSync('promtool', ['--version']).error === undefined ? false : 'promtool is not installed (.ci/run installs it)'
let exposition = ''

function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels === '' ? ' ' : `{${labels}} `}`))
  return line === undefined ? 0 : Number(line.split(' ').at(-1))
}

t.test('counters move by the traffic sent: cache, tokens, dollars, refusals', async (t) => {
  const mock = await startMockUpstream()
  t.teardown(() => mock.close())
  const dataDir = freshDataDir(t)
  const rich = await seedProject(dataDir)
  const poor = await seedProject(dataDir, { budgetDollars: 0.000001 })
  const limited = await seedProject(dataDir, { plan: 'free' }, [{ type: 'sk', env: 'dev' }])
  const { url } = await startTestGateway(t, { dataDir, env: { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test' } })
  const key = rich.keys[0]!.key
  const ask = (content: string) => call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content }] } })

  const first = await ask('first question')
  const second = await ask('second question')
  const hit = await ask('first question')
  t.equal(hit.headers['x-cache-status'], 'HIT')
  t.equal((await call(`${url}/api/ai/complete`, { key: poor.keys[0]!.key, body: { messages: [{ role: 'user', content: 'x' }] } })).status, 402)
  for (let i = 0; i < 3; i++) await call(`${url}/api/health`, { key: limited.keys[0]!.key })

  const text = (await call(`${url}/metrics`)).body as string
  const model = 'provider="openai",model="gpt-4o-mini"'
  t.equal(sample(text, 'tollgate_cache_requests_total', 'result="hit"'), 1)
  t.equal(sample(text, 'tollgate_cache_requests_total', 'result="miss"'), 3, 'two misses and the refused request')
  t.equal(sample(text, 'tollgate_tokens_total', `${model},direction="input"`), first.body.usage.promptTokens + second.body.usage.promptTokens)
  t.equal(sample(text, 'tollgate_tokens_total', `${model},direction="output"`), first.body.usage.completionTokens + second.body.usage.completionTokens)
  const charged = Number(first.headers['x-credits-charged']) + Number(second.headers['x-credits-charged'])
  t.ok(Math.abs(sample(text, 'tollgate_cost_dollars_total', model) - charged) < 1e-9, 'dollars match the charges')
  t.equal(sample(text, 'tollgate_budget_refusals_total'), 1)
  t.equal(sample(text, 'tollgate_rate_limited_total', 'limit="burst"'), 1, 'burst 2, third refused')
  t.equal(sample(text, 'tollgate_upstream_duration_seconds_count', `${model},outcome="ok"`), 2)
  t.equal(sample(text, 'tollgate_requests_total', 'route="ai_complete",status_class="2xx",reason="cache_hit"'), 1)

  exposition = text
})

t.test('the exposition passes promtool check metrics', { skip: PROMTOOL_MISSING }, async (t) => {
  t.doesNotThrow(() => execFileSync('promtool', ['check', 'metrics'], { input: exposition }))
})
