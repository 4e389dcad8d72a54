// A plugin's config section read the way the gateway reads it at start (file, overrides and the
// plugin's environment variables): the parsed section, or the message the operator would see.
import { builtinPlugins } from '../../plugins/index.ts'
import { ConfigError, loadConfig } from '../../proxy/config.ts'

function pluginNamed(name: string) {
  const plugin = builtinPlugins.find((p) => p.name === name)
  if (plugin === undefined) throw new Error(`no built-in plugin ${name}`)
  return plugin
}

/** The section as the plugin receives it. */
export function pluginSection(name: string, section: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}): unknown {
  return loadConfig([pluginNamed(name)], env, { plugins: { [name]: section } }).plugins.get(name)
}

/** The config error the section gives, or 'no error'. */
export function pluginConfigError(name: string, section: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): string {
  try {
    pluginSection(name, section, env)
    return 'no error'
  } catch (err) {
    if (err instanceof ConfigError) return err.message
    throw err
  }
}
