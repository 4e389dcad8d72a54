// start() that cannot start says why in one line, naming the setting or the plugins at fault.
import t from 'tap'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { ConfigError } from '../../proxy/config.ts'
import { start } from '../../proxy/index.ts'
import { builtinPlugins } from '../../plugins/index.ts'
import { freshDataDir, TEST_SECRET } from '../helpers/start-gateway.ts'

t.test('a port in use is named by the listener\'s variable', async (t) => {
  const taken = createServer().listen(0, '127.0.0.1')
  await once(taken, 'listening')
  t.teardown(() => taken.close())
  const port = (taken.address() as AddressInfo).port
  const dataDir = freshDataDir(t)
  for (const [setting, overrides] of [['PORT', { port }], ['METRICS_PORT', { port: 0, metricsPort: port }], ['AUTH_PORT', { port: 0, authPort: port }]] as const) {
    await t.rejects(start({
      env: {},
      overrides: { ...overrides, dataDir, logLevel: 'silent', plugins: { auth: { secret: TEST_SECRET, demoOnFirstStart: false } } },
    }), new ConfigError(`port ${port} is in use (${setting})`))
  }
})

t.test('the built-ins without auth do not start: a plugin that requires it is named', async (t) => {
  const plugins = builtinPlugins.filter((plugin) => plugin.name !== 'auth')
  await t.rejects(start({ env: {}, plugins, overrides: { dataDir: freshDataDir(t), logLevel: 'silent' } }), {
    constructor: ConfigError,
    message: /^plugin "(governor|passthrough|accounts)" requires plugin "auth", which is not among the gateway's plugins/,
  })
})
