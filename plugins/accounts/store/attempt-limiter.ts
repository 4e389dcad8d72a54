// Attempt counting for the unauthenticated account routes: in this process's memory
// (memory/attempt-limiter.ts) for a process alone on its store, in the store for processes that
// share one (lmdb/attempt-limiter.ts, postgres/attempt-limiter.ts).
import type { Attempt, GuardedKey } from '../logic/attempt-window.ts'

export interface AttemptLimiter {
  /** Counts one attempt under every key, or none when any key is at its limit. */
  attempt(keys: readonly GuardedKey[]): Promise<Attempt>
}
