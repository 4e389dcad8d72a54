// Providers without an API key run on the local simulator: said once in the log at start, in
// /readyz (still 200), and by the gauge tollgate_provider_simulated{provider}.
import t, { type Test } from 'tap'
import { call } from '../../helpers/http.ts'
import { captureLog } from '../../helpers/log-capture.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

async function gatewayWith(t: Test, env: NodeJS.ProcessEnv) {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, {}, [{ type: 'sk', env: 'prod' }])
  const log = captureLog()
  const { url } = await startTestGateway(t, { dataDir, env, overrides: { logLevel: 'info' }, logDestination: log.destination })
  return { url, log, key: seeded.keys[0]!.key }
}

const gaugeOf = (metrics: string, provider: string) => new RegExp(`^tollgate_provider_simulated\\{provider="${provider}"\\} (\\d)$`, 'm').exec(metrics)?.[1]

t.test('without keys every provider is reported as simulated, and production keys are served and charged by the simulator', async (t) => {
  const { url, log, key } = await gatewayWith(t, {})
  const ready = await call(`${url}/readyz`)
  t.equal(ready.status, 200, 'the gateway works: it is ready')
  t.same(ready.body, { status: 'ready', simulated: ['openai', 'anthropic', 'mistral'] })
  const metrics = (await call(`${url}/metrics`)).body as string
  t.same(
    ['openai', 'anthropic', 'mistral'].map((p) => gaugeOf(metrics, p)),
    ['1', '1', '1'],
  )
  const warnings = log.lines().filter((line) => line.simulated !== undefined)
  t.equal(warnings.length, 1, 'one warning at start')
  t.match(warnings[0], { level: 40, simulated: ['openai', 'anthropic', 'mistral'], msg: /^no API key for openai, anthropic, mistral: .*local simulator/ })
  const answer = await call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content: 'Hello' }], model: 'gpt-4o' } })
  t.equal(answer.headers['x-gateway-model'], 'local/gpt-4o')
  t.ok(Number(answer.headers['x-credits-charged']) > 0, 'charged at the list price')
  t.equal((await call(`${url}/api/ai/complete`, { key, body: { messages: [{ role: 'user', content: 'Hello' }], model: 'gpt-4o' } })).status, 200)
  t.equal(log.lines().filter((line) => line.simulated !== undefined).length, 1, 'the warning is not repeated by requests')
})

t.test('a provider with a key is not reported; with every key there is no warning', async (t) => {
  const one = await gatewayWith(t, { OPENAI_API_KEY: 'sk-test-0000000000' })
  t.same((await call(`${one.url}/readyz`)).body, { status: 'ready', simulated: ['anthropic', 'mistral'] })
  const metrics = (await call(`${one.url}/metrics`)).body as string
  t.same(
    ['openai', 'anthropic', 'mistral'].map((p) => gaugeOf(metrics, p)),
    ['0', '1', '1'],
  )
  t.match(
    one.log.lines().find((line) => line.simulated !== undefined),
    { simulated: ['anthropic', 'mistral'] },
  )

  const all = await gatewayWith(t, { OPENAI_API_KEY: 'sk-a-000000000', ANTHROPIC_API_KEY: 'sk-b-000000000', MISTRAL_API_KEY: 'm-000000000' })
  t.same((await call(`${all.url}/readyz`)).body, { status: 'ready', simulated: [] })
  t.same(
    all.log.lines().filter((line) => line.simulated !== undefined),
    [],
  )
  const allMetrics = (await call(`${all.url}/metrics`)).body as string
  t.same(
    ['openai', 'anthropic', 'mistral'].map((p) => gaugeOf(allMetrics, p)),
    ['0', '0', '0'],
  )
})
