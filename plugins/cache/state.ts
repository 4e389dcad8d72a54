// What the cache adds to the core's types: its settings on every project, its state slot, and how
// it shows on the request's log line.
import type { CompletedContext } from '../../proxy/pipeline/context.ts'

export interface CacheSettings {
  readonly cacheTtlSeconds: number
  readonly cacheEnabled: boolean
  /**
   * The cache also answers a client dialect's sampled requests (temperature above 0, no seed);
   * absent or false, only its deterministic ones. The spec's endpoints cache either way.
   */
  readonly cacheSampled?: boolean
}

declare module '../../proxy/pipeline/project.ts' {
  interface Project extends CacheSettings {}
}

interface CacheState {
  /** The hashed cache key; never the prompt itself. */
  readonly key: string
  /** Answered from the cache (stored or coalesced) instead of by a model call. */
  readonly hit: boolean
  /** Answered with a concurrent identical request's fresh answer. */
  readonly coalesced: boolean
}

declare module '../../proxy/pipeline/context.ts' {
  interface PluginState {
    cache?: CacheState
  }
}

/** The cache's result, on every line. */
export function cacheLogFields(ctx: CompletedContext): Readonly<Record<string, unknown>> | undefined {
  const cache = ctx.state.cache
  return cache === undefined ? undefined : { cache: cache.coalesced ? 'coalesced' : cache.hit ? 'hit' : 'miss' }
}
