// Time as the gateway sees it. Tests inject a manual clock; nothing reads Date.now() directly.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
