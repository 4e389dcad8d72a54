// Attempt counting for the unauthenticated account routes: a fixed one-minute window per key
// (an IP or an e-mail), in this process's memory. Refused attempts are not counted, so a client
// that waits out retry_after gets its full allowance back.
import type { Clock } from '../../proxy/clock.ts'

const WINDOW_MS = 60_000
// Windows are swept once the map grows past this, so keys from a flood do not pile up.
const SWEEP_AT = 10_000

export type Attempt = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterS: number }

export interface AttemptLimiter {
  /** Counts one attempt under every key, or none when any key is at its limit. */
  attempt(keys: ReadonlyArray<{ readonly key: string; readonly limit: number }>): Attempt
}

export function createAttemptLimiter(clock: Clock): AttemptLimiter {
  const windows = new Map<string, { start: number; count: number }>()
  const sweep = (now: number) => {
    for (const [key, window] of windows) if (now - window.start >= WINDOW_MS) windows.delete(key)
  }
  return {
    attempt(keys) {
      const now = clock.now()
      if (windows.size > SWEEP_AT) sweep(now)
      let retryAfterMs = 0
      for (const { key, limit } of keys) {
        const window = windows.get(key)
        if (window !== undefined && now - window.start < WINDOW_MS && window.count >= limit) {
          retryAfterMs = Math.max(retryAfterMs, window.start + WINDOW_MS - now)
        }
      }
      if (retryAfterMs > 0) return { allowed: false, retryAfterS: Math.ceil(retryAfterMs / 1000) }
      for (const { key } of keys) {
        const window = windows.get(key)
        if (window === undefined || now - window.start >= WINDOW_MS) windows.set(key, { start: now, count: 1 })
        else window.count++
      }
      return { allowed: true }
    },
  }
}
