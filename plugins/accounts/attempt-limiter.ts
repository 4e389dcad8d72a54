// Attempt counting for the unauthenticated account routes, in this process's memory: for a
// process alone on its store. Processes sharing a store use store-attempt-limiter.ts instead.
import type { Clock } from '../../proxy/kit/clock.ts'
import { decideAttempt, isExpired, type Attempt, type AttemptWindow, type GuardedKey } from './attempt-window.ts'

// Windows are swept once the map grows past this, so keys from a flood do not pile up.
const SWEEP_AT = 10_000

export interface AttemptLimiter {
  /** Counts one attempt under every key, or none when any key is at its limit. */
  attempt(keys: readonly GuardedKey[]): Promise<Attempt>
}

export function createMemoryAttemptLimiter(clock: Clock): AttemptLimiter {
  const windows = new Map<string, AttemptWindow>()
  return {
    async attempt(keys) {
      const now = clock.now()
      if (windows.size > SWEEP_AT) {
        for (const [key, window] of windows) if (isExpired(window.start, now)) windows.delete(key)
      }
      const { attempt, changes } = decideAttempt(keys, (key) => windows.get(key), now)
      for (const { key, window } of changes) windows.set(key, window)
      return attempt
    },
  }
}
