// The webhooks config section: its defaults, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('every setting has a default: public https targets only', async (t) => {
  t.strictSame(pluginSection('webhooks'), {
    allowPrivateTargets: false,
    allowHttp: false,
    timeoutMs: 10_000,
    concurrency: 16,
    perWebhookConcurrency: 4,
    disableAfterFailures: 20,
    pollIntervalMs: 1000,
    batchSize: 100,
    retentionDays: 30,
  })
  t.match(
    pluginSection('webhooks', {}, { WEBHOOKS_ALLOW_PRIVATE_TARGETS: '1', WEBHOOKS_ALLOW_HTTP: 'true' }),
    { allowPrivateTargets: true, allowHttp: true },
    'or as the variables say',
  )
})

t.test('a bad value is refused with its path', async (t) => {
  t.match(pluginConfigError('webhooks', { timeoutMs: 50 }), /^invalid configuration: plugins\.webhooks\.timeoutMs: Too small/)
  t.match(pluginConfigError('webhooks', { concurrency: 0 }), /^invalid configuration: plugins\.webhooks\.concurrency: Too small/)
  t.match(pluginConfigError('webhooks', { batchSize: 10_001 }), /^invalid configuration: plugins\.webhooks\.batchSize: Too big/)
  t.equal(
    pluginConfigError('webhooks', { encryptionKey: 'short' }),
    'invalid configuration: plugins.webhooks.encryptionKey: encryptionKey must hold at least 32 characters',
  )
  t.match(pluginConfigError('webhooks', { retries: 3 }), /^invalid configuration: plugins\.webhooks: Unrecognized key: "retries"/)
})
