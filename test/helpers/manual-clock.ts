// The clock tests hand the gateway: time moves only when the test moves it, so expiry, retry
// and cooldown tests need no sleeps and give the same answer on a loaded machine.
import type { Clock } from '../../proxy/kit/clock.ts'

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`. */
  advance(ms: number): void
  /** Puts time at `ms` since the epoch. */
  set(ms: number): void
}

export const MANUAL_CLOCK_START = Date.parse('2026-03-02T09:00:00Z')

export function manualClock(start = MANUAL_CLOCK_START): ManualClock {
  let now = start
  return {
    now: () => now,
    advance: (ms) => {
      now += ms
    },
    set: (ms) => {
      now = ms
    },
  }
}
