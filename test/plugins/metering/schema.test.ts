// The metering config section: its defaults, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('every setting has a default', async (t) => {
  t.strictSame(pluginSection('metering'), {
    enforceBudgets: true,
    unpricedHoldDollars: 1,
    shared: false,
    holdLeaseMs: 30_000,
    checkpointIntervalMs: 1000,
    countTimeoutMs: 10_000,
  })
})

t.test('a bad value is refused with its path', async (t) => {
  t.match(pluginConfigError('metering', { holdLeaseMs: 100 }), /^invalid configuration: plugins\.metering\.holdLeaseMs: Too small/)
  t.match(pluginConfigError('metering', { checkpointIntervalMs: 1.5 }), /^invalid configuration: plugins\.metering\.checkpointIntervalMs: /)
  t.match(pluginConfigError('metering', { unpricedHoldDollars: -1 }), /^invalid configuration: plugins\.metering\.unpricedHoldDollars: Too small/)
  t.match(
    pluginConfigError('metering', { enforceBudgets: 'yes' }),
    /^invalid configuration: plugins\.metering\.enforceBudgets: Invalid input: expected boolean/,
  )
})

t.test('no setting makes the gateway kill itself: crash points are for tests, outside the config', async (t) => {
  t.match(pluginConfigError('metering', { testCrashAfter: 'answer' }), /^invalid configuration: plugins\.metering: Unrecognized key: "testCrashAfter"/)
})
