// The auth config section: its defaults, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('every setting has a default, and the secret is generated when absent', async (t) => {
  t.strictSame(pluginSection('auth'), { lastUsedIntervalMs: 60_000, demoOnFirstStart: true })
  t.equal((pluginSection('auth', {}, { TOLLGATE_SECRET: 's'.repeat(32) }) as { secret?: string }).secret, 's'.repeat(32), 'read from TOLLGATE_SECRET')
})

t.test('a bad value is refused with its path, or its variable', async (t) => {
  t.equal(pluginConfigError('auth', { secret: 'short' }), 'invalid configuration: plugins.auth.secret: secret must hold at least 32 characters')
  t.equal(pluginConfigError('auth', {}, { TOLLGATE_SECRET: 'short' }), 'invalid configuration: TOLLGATE_SECRET: secret must hold at least 32 characters')
  t.match(pluginConfigError('auth', { lastUsedIntervalMs: -1 }), /^invalid configuration: plugins\.auth\.lastUsedIntervalMs: Too small/)
  t.match(pluginConfigError('auth', { demoOnFirstStart: 'no' }), /^invalid configuration: plugins\.auth\.demoOnFirstStart: Invalid input: expected boolean/)
  t.match(pluginConfigError('auth', { keyPrefix: 'sk' }), /^invalid configuration: plugins\.auth: Unrecognized key: "keyPrefix"/)
})
