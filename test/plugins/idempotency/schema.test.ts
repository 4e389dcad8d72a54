// The idempotency config section: its defaults, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('every setting has a default', async (t) => {
  t.strictSame(pluginSection('idempotency'), { waitMs: 30_000, inFlightLeaseMs: 3_600_000, ownerLeaseMs: 30_000, sweepIntervalMs: 60_000, sweepBatch: 500 })
})

t.test('a bad value is refused with its path', async (t) => {
  t.match(pluginConfigError('idempotency', { waitMs: -1 }), /^invalid configuration: plugins\.idempotency\.waitMs: Too small/)
  t.match(pluginConfigError('idempotency', { ownerLeaseMs: 100 }), /^invalid configuration: plugins\.idempotency\.ownerLeaseMs: Too small/)
  t.match(pluginConfigError('idempotency', { sweepBatch: 0 }), /^invalid configuration: plugins\.idempotency\.sweepBatch: Too small/)
  t.match(
    pluginConfigError('idempotency', { inFlightLeaseMs: 'an hour' }),
    /^invalid configuration: plugins\.idempotency\.inFlightLeaseMs: Invalid input: expected number/,
  )
})

t.test('no setting or environment variable makes the gateway kill itself: crash points are for tests, outside the config', async (t) => {
  t.match(
    pluginConfigError('idempotency', { testCrashAfter: 'idempotency-commit' }),
    /^invalid configuration: plugins\.idempotency: Unrecognized key: "testCrashAfter"/,
  )
  t.strictSame(
    pluginSection('idempotency', {}, { TOLLGATE_TEST_CRASH_AFTER: 'idempotency-commit' }),
    pluginSection('idempotency'),
    'TOLLGATE_TEST_CRASH_AFTER is not read',
  )
})
