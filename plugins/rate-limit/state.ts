// What the rate limit adds to the core's types: its state slot, and how it shows on the
// request's log line.
import type { CompletedContext } from '../../proxy/pipeline/context.ts'

interface RateLimitState {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

declare module '../../proxy/pipeline/context.ts' {
  interface PluginState {
    rateLimit?: RateLimitState
  }
}

/** What is left of the key's limit, on a development key's line. */
export function rateLimitLogFields(ctx: CompletedContext, verbose: boolean): Readonly<Record<string, unknown>> | undefined {
  const rateLimit = ctx.state.rateLimit
  return verbose && rateLimit !== undefined ? { rateLimitRemaining: rateLimit.remaining } : undefined
}
