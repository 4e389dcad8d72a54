// The rate-limit config section: its defaults, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('every setting has a default: the plans of the spec, pro and startup alike', async (t) => {
  t.strictSame(pluginSection('rate-limit'), {
    plans: {
      free: { perMinute: 10, burst: 20, perDay: 1_000 },
      pro: { perMinute: 100, burst: 200, perDay: 100_000 },
      startup: { perMinute: 100, burst: 200, perDay: 100_000 },
      growth: { perMinute: 500, burst: 1_000, perDay: null },
      enterprise: { perMinute: null, burst: null, perDay: null },
    },
    devDivisor: 10,
    shared: false,
    failOpen: false,
  })
})

t.test('a bad value is refused with its path', async (t) => {
  const plans = pluginSection('rate-limit') as { plans: Record<string, unknown> }
  t.match(
    pluginConfigError('rate-limit', { plans: { ...plans.plans, free: { perMinute: 0, burst: 20, perDay: 1000 } } }),
    /^invalid configuration: plugins\.rate-limit\.plans\.free\.perMinute: Too small/,
  )
  t.match(
    pluginConfigError('rate-limit', { plans: { ...plans.plans, team: { perMinute: 1, burst: 1, perDay: 1 } } }),
    /^invalid configuration: plugins\.rate-limit\.plans: Unrecognized key: "team"/,
  )
  t.match(pluginConfigError('rate-limit', { devDivisor: 0 }), /^invalid configuration: plugins\.rate-limit\.devDivisor: Too small/)
  t.match(pluginConfigError('rate-limit', { failOpen: 'yes' }), /^invalid configuration: plugins\.rate-limit\.failOpen: Invalid input: expected boolean/)
})
