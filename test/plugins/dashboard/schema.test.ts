// The dashboard config section: its default, and errors that name the setting.
import t from 'tap'
import { pluginConfigError, pluginSection } from '../../helpers/plugin-config.ts'

t.test('the dashboard is on by default', async (t) => {
  t.strictSame(pluginSection('dashboard'), { enabled: true })
})

t.test('a bad value is refused with its path', async (t) => {
  t.match(pluginConfigError('dashboard', { enabled: 'off' }), /^invalid configuration: plugins\.dashboard\.enabled: Invalid input: expected boolean/)
  t.match(pluginConfigError('dashboard', { path: '/admin' }), /^invalid configuration: plugins\.dashboard: Unrecognized key: "path"/)
})
