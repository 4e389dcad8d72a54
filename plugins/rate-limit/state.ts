// What the rate limit adds to the core's types: its state slot.
export interface RateLimitState {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

declare module '../../proxy/context.ts' {
  interface PluginState {
    rateLimit?: RateLimitState
  }
}
