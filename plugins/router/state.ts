// What the router adds to the core's types: its state slot, how the slot shows on the request's
// log line, and the services it provides.
import type { Message } from '../../proxy/pipeline/ai-request.ts'
import type { CompletedContext, ModelCall } from '../../proxy/pipeline/context.ts'
import type { ModelName } from '../../proxy/pipeline/models.ts'
import type { ProviderDirectory } from './provider-directory.ts'
import type { ProviderAdapter } from './providers/adapter.ts'

/** The router's choice, also the core's model call; when a fallback serves instead, the core notes it in ctx.servedBy. */
export interface RouteDecision extends ModelCall {
  /** Every model that may serve the request, the chosen one first, then any fallback. */
  readonly models: readonly ModelName[]
  /** The messages sent upstream, after context-window trimming. */
  readonly messages: readonly Message[]
  readonly trimmedMessages: number
  /** At least what any serving provider can count for the prompt: what a budget hold reserves. */
  readonly promptTokensBound: number
  /**
   * The most tokens the answer may hold: the client's maximum, or else the longest answer a
   * candidate model gives. What a budget hold reserves for output.
   */
  readonly maxTokens: number
}

/** The router's built-in local provider: simulated answers, with no network call. */
export type LocalModel = Pick<ProviderAdapter, 'complete'>

declare module '../../proxy/pipeline/context.ts' {
  interface PluginState {
    router?: RouteDecision
  }
}

declare module '../../proxy/pipeline/plugin.ts' {
  interface PluginServices {
    /** Each provider's API address and the gateway's credential for it: the router's configuration. */
    readonly providers?: ProviderDirectory
    /** The local model, for plugins that want an answer outside a request's chain (the account query). */
    readonly localModel?: LocalModel
  }
}

/** Messages dropped to fit the context window, on a development key's line; the model is the core's. */
export function routerLogFields(ctx: CompletedContext, verbose: boolean): Readonly<Record<string, unknown>> | undefined {
  const router = ctx.state.router
  return verbose && router !== undefined ? { trimmedMessages: router.trimmedMessages } : undefined
}
