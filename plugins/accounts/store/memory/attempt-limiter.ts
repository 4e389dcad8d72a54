// Attempt counting in this process's memory: for a process alone on its store.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { decideAttempt, isExpired, type AttemptWindow } from '../../logic/attempt-window.ts'
import type { AttemptLimiter } from '../attempt-limiter.ts'

// Windows are swept once the map grows past this, so keys from a flood do not pile up.
const SWEEP_AT = 10_000

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
