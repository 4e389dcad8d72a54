// start() that cannot open a listener says why in one line naming the setting.
import t from 'tap'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { ConfigError } from '../../proxy/config.ts'
import { start } from '../../proxy/index.ts'
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
