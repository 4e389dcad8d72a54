// The decision of one attempt on the unauthenticated account routes: a fixed one-minute window
// per key (an IP or an e-mail). Pure: the caller keeps the windows, in memory or in the store.
// Refused attempts are not counted, so a client that waits out retry_after gets its full
// allowance back.

export const WINDOW_MS = 60_000

export interface AttemptWindow {
  readonly start: number
  readonly count: number
}

export interface GuardedKey {
  readonly key: string
  readonly limit: number
}

export type Attempt = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterS: number }

interface WindowChange {
  readonly key: string
  readonly window: AttemptWindow
  /** A new window starts with this attempt (the count of an open one goes up otherwise). */
  readonly opened: boolean
  /** The expired window a new one replaces. */
  readonly replaced: AttemptWindow | undefined
}

interface AttemptDecision {
  readonly attempt: Attempt
  /** What to store when the attempt is allowed; nothing when it is refused. */
  readonly changes: readonly WindowChange[]
}

export const isExpired = (windowStart: number, now: number) => now - windowStart >= WINDOW_MS

/** Counts one attempt under every key, or none when any key is at its limit. */
export function decideAttempt(keys: readonly GuardedKey[], windowOf: (key: string) => AttemptWindow | undefined, now: number): AttemptDecision {
  const current = keys.map(({ key }) => windowOf(key))
  let retryAfterMs = 0
  keys.forEach(({ limit }, i) => {
    const window = current[i]
    if (window !== undefined && !isExpired(window.start, now) && window.count >= limit) {
      retryAfterMs = Math.max(retryAfterMs, window.start + WINDOW_MS - now)
    }
  })
  if (retryAfterMs > 0) return { attempt: { allowed: false, retryAfterS: Math.ceil(retryAfterMs / 1000) }, changes: [] }
  const changes = keys.map(({ key }, i): WindowChange => {
    const window = current[i]
    return window === undefined || isExpired(window.start, now)
      ? { key, window: { start: now, count: 1 }, opened: true, replaced: window }
      : { key, window: { start: window.start, count: window.count + 1 }, opened: false, replaced: undefined }
  })
  return { attempt: { allowed: true }, changes }
}
