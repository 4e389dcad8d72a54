// The spec's retry rule, "retried at 1 min, 5 min, 15 min, 1 h, 6 h; maximum 5 attempts", read
// as: the first attempt, then up to five retries, one at each offset counted from the first
// attempt. A delivery still failing after the sixth attempt is marked failed.

export const RETRY_OFFSETS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 6 * 60 * 60_000] as const

/** When the next attempt is due once `attempts` have failed, or undefined when none is left. */
export function nextAttemptAt(firstAttemptAt: number, attempts: number): number | undefined {
  const offset = RETRY_OFFSETS_MS[attempts - 1]
  return offset === undefined ? undefined : firstAttemptAt + offset
}
