// What the cache adds to the core's types: its state slot.
export interface CacheState {
  /** The hashed cache key; never the prompt itself. */
  readonly key: string
  /** Answered from the cache (stored or coalesced) instead of by a model call. */
  readonly hit: boolean
  /** Answered with a concurrent identical request's fresh answer. */
  readonly coalesced: boolean
}

declare module '../../proxy/context.ts' {
  interface PluginState {
    cache?: CacheState
  }
}
