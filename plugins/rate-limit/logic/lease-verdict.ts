// The verdict of a request admitted from, or refused at, a process's lease, with the X-RateLimit-*
// figures as the shared state stood at the last lease less what this process admitted since.
// Pure: the caller passes the figures and the time.
import type { PlanLimits } from '../schema.ts'
import { refusalOf, seconds, type LimitVerdict, type RefusedBy } from './check-limits.ts'
import { DAY_MS } from './token-leases.ts'

export interface LeaseFigures {
  /** Bucket tokens free for every process at the last lease, with this process's still unused; undefined without a minute limit. */
  readonly bucketTokens?: number
  /** The day's requests left, counted the same way; undefined without a daily quota. */
  readonly quotaLeft?: number
}

/** The verdict after admitting a request (`refused` undefined) or refusing it. */
export function leaseVerdict(
  limits: PlanLimits,
  figures: LeaseFigures,
  nowMs: number,
  refused?: { readonly by: RefusedBy; readonly retryAfterMs: number },
): LimitVerdict {
  const quotaResetMs = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS - nowMs
  const quotaBinds = figures.quotaLeft !== undefined && (refused?.by === 'daily' || figures.bucketTokens === undefined)
  const capacity = limits.burst ?? limits.perMinute ?? 0
  const fullInMs = figures.bucketTokens === undefined ? 0 : Math.ceil((capacity - figures.bucketTokens) / ((limits.perMinute ?? 1) / 60_000))
  const verdict = {
    allowed: refused === undefined,
    // A token bucket's limit is its size, so Remaining never exceeds Limit.
    limit: quotaBinds ? limits.perDay! : capacity,
    remaining: Math.max(0, Math.min(figures.bucketTokens === undefined ? Infinity : Math.floor(figures.bucketTokens), figures.quotaLeft ?? Infinity)),
    resetSeconds: seconds(quotaBinds ? quotaResetMs : fullInMs),
  }
  return refused === undefined ? verdict : { ...verdict, refusal: refusalOf(limits, refused.by, refused.retryAfterMs) }
}
