// What the router adds to the core's types: its state slot and the services it provides.
import type { Message } from '../../proxy/ai-request.ts'
import type { ModelCall } from '../../proxy/context.ts'
import type { ModelName } from '../../proxy/models.ts'
import type { ProviderDirectory } from './provider-directory.ts'

/** The router's choice, also the core's model call; when a fallback serves instead, the core notes it in ctx.servedBy. */
export interface RouteDecision extends ModelCall {
  /** Every model that may serve the request, the chosen one first, then any fallback. */
  readonly models: readonly ModelName[]
  /** The messages sent upstream, after context-window trimming. */
  readonly messages: readonly Message[]
  readonly trimmedMessages: number
  /** At least what any serving provider can count for the prompt: what a budget hold reserves. */
  readonly promptTokensBound: number
}

declare module '../../proxy/context.ts' {
  interface PluginState {
    router?: RouteDecision
  }
}

declare module '../../proxy/plugin.ts' {
  interface PluginServices {
    /** Each provider's API address and the gateway's credential for it: the router's configuration. */
    readonly providers?: ProviderDirectory
  }
}
