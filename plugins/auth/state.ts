// What the auth plugin adds to the core's types: its state slot, how the slot shows on the
// request's log line, and the services it provides; with what other plugins need to use them.
import type { Caller, CompletedContext, KeyType } from '../../proxy/pipeline/context.ts'
import type { AuthRegistry } from './store/registry.ts'

export type { AuthRegistry, KeyLimitChanges, KeyLimits, KeyView, ProjectChanges } from './store/registry.ts'
export { RegistryError } from './store/registry.ts'
export { presentedKey } from './logic/api-key-header.ts'
export { parseKey } from './logic/key-format.ts'

export interface AuthState extends Caller {
  readonly keyId: string
  readonly keyType: KeyType
  /** dev keys: always the local provider, verbose logs, a tenth of the plan's limits. */
  readonly testMode: boolean
  /** The key's own monthly budget in dollars, checked beside its project's; absent when it has none. */
  readonly keyBudgetDollars?: number
  /** The key's own requests per minute, checked beside its plan's; absent when it has none. */
  readonly keyRpm?: number
}

/**
 * The state a request carrying this API key has, when the key opens the gateway (well-formed,
 * known, active, of a project that exists); undefined when it does not.
 */
export type Authenticate = (key: string) => Promise<AuthState | undefined>

declare module '../../proxy/pipeline/context.ts' {
  interface PluginState {
    auth?: AuthState
  }
}

declare module '../../proxy/pipeline/plugin.ts' {
  interface PluginServices {
    /** Projects and API keys: the auth plugin's registry, also behind the CLI. */
    readonly registry?: AuthRegistry
    /** The one check of an API key, for plugins that take keys outside the chain. */
    readonly authenticate?: Authenticate
  }
}

/** The key on a development key's line; its project is on every line, from the core's caller. */
export function authLogFields(ctx: CompletedContext, verbose: boolean): Readonly<Record<string, unknown>> | undefined {
  const auth = ctx.state.auth
  return verbose && auth !== undefined ? { keyId: auth.keyId, env: auth.env, testMode: auth.testMode } : undefined
}
