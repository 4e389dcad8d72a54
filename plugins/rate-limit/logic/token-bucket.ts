// A token bucket: `capacity` tokens at most, refilled continuously at `perMinute`. Pure: the
// caller owns the state and the clock.

export interface BucketState {
  readonly tokens: number
  readonly updatedMs: number
}

interface BucketLimits {
  readonly perMinute: number
  readonly capacity: number
}

export interface Take {
  readonly allowed: boolean
  readonly state: BucketState
  /** Whole tokens left after this take. */
  readonly remaining: number
  /** Until one token is available again; 0 when one is. */
  readonly retryAfterMs: number
  /** Until the bucket is full again. */
  readonly fullInMs: number
}

export function takeToken(previous: BucketState | undefined, limits: BucketLimits, nowMs: number): Take {
  const perMs = limits.perMinute / 60_000
  const elapsed = previous === undefined ? 0 : Math.max(0, nowMs - previous.updatedMs)
  const available = previous === undefined ? limits.capacity : Math.min(limits.capacity, previous.tokens + elapsed * perMs)
  const allowed = available >= 1
  const tokens = allowed ? available - 1 : available
  return {
    allowed,
    state: { tokens, updatedMs: nowMs },
    remaining: Math.floor(tokens),
    retryAfterMs: tokens >= 1 ? 0 : Math.ceil((1 - tokens) / perMs),
    fullInMs: Math.ceil((limits.capacity - tokens) / perMs),
  }
}
