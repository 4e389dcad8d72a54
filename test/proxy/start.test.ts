// start() that cannot start says why in one line, naming the setting or the plugins at fault.
import t from 'tap'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { ConfigError } from '../../proxy/config.ts'
import { start } from '../../proxy/index.ts'
import { builtinPlugins } from '../../plugins/index.ts'
import { z } from 'zod'
import { modelCatalog, type ModelCatalog } from '../../proxy/pipeline/catalog.ts'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { freshDataDir, startTestGateway, TEST_SECRET } from '../helpers/start-gateway.ts'

t.test("a port in use is named by the listener's variable", async (t) => {
  const taken = createServer().listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.teardown(() => taken.close())
  const port = (taken.address() as AddressInfo).port
  const dataDir = freshDataDir(t)
  for (const [setting, overrides] of [
    ['PORT', { port }],
    ['METRICS_PORT', { port: 0, metricsPort: port }],
    ['AUTH_PORT', { port: 0, authPort: port }],
  ] as const) {
    await t.rejects(
      start({
        env: {},
        overrides: { ...overrides, dataDir, logLevel: 'silent', plugins: { auth: { secret: TEST_SECRET, demoOnFirstStart: false } } },
      }),
      new ConfigError(`port ${port} is in use (${setting})`),
    )
  }
})

t.test('the built-ins without auth do not start: a plugin that requires it is named', async (t) => {
  const plugins = builtinPlugins.filter((plugin) => plugin.name !== 'auth')
  await t.rejects(start({ env: {}, plugins, overrides: { dataDir: freshDataDir(t), logLevel: 'silent' } }), {
    constructor: ConfigError,
    message: /^plugin "(governor|passthrough|accounts)" requires plugin "auth", which is not among the gateway's plugins/,
  })
})

t.test('every plugin is given the model table the configuration put in force', async (t) => {
  let given: ModelCatalog | undefined
  const probe: GatewayPlugin = {
    name: 'catalog-probe',
    order: 9_999,
    gates: [],
    schema: z.object({}),
    setup(_config, { catalog }) {
      given = catalog
      return {}
    },
  }
  const { url } = await startTestGateway(t, {
    plugins: [...builtinPlugins, probe],
    overrides: { models: { 'probe-model': { provider: 'openai', inputPerMillion: 3, outputPerMillion: 4, contextWindow: 8_000, maxOutputTokens: 1_000 } } },
  })
  t.ok(url)
  t.equal(given, modelCatalog())
  t.equal(given?.info('probe-model').inputPerMillion, 3, 'with the configured models')
})
