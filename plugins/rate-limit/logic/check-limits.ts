// One key's limits checked at one instant: the per-minute bucket and the daily quota together.
// Pure: the caller keeps the state, in memory or in the shared store.
import type { PlanLimits } from '../schema.ts'
import { takeQuota, type QuotaState } from './daily-quota.ts'
import { takeToken, type BucketState } from './token-bucket.ts'

export interface KeyLimitState {
  readonly bucket?: BucketState
  readonly quota?: QuotaState
}

export type RefusedBy = 'burst' | 'daily'

/** What a request learns of its key's limits: whether it may pass, and the X-RateLimit-* figures. */
export interface LimitVerdict {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
  /** Set when refused. */
  readonly refusal?: { readonly by: RefusedBy; readonly retryAfterSeconds: number; readonly message: string }
}

export interface CheckedLimits extends LimitVerdict {
  readonly next: KeyLimitState
}

/** Whole seconds for a header: at least 1. */
export const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/** The refusal of a request over its limits; retry after `retryAfterMs`. */
export function refusalOf(limits: PlanLimits, by: RefusedBy, retryAfterMs: number): NonNullable<LimitVerdict['refusal']> {
  const retryAfterSeconds = seconds(retryAfterMs)
  if (by === 'daily') return { by, retryAfterSeconds, message: `The daily quota of ${limits.perDay} requests for this key is used up; it resets at 00:00 UTC.` }
  return {
    by,
    retryAfterSeconds,
    message: `This key may send ${limits.perMinute} requests per minute (bursts of ${limits.burst ?? limits.perMinute}); retry in ${retryAfterSeconds}s.`,
  }
}

/** Undefined when the limits are unlimited. */
export function checkLimits(limits: PlanLimits, previous: KeyLimitState | undefined, nowMs: number): CheckedLimits | undefined {
  const bucket =
    limits.perMinute === null ? undefined : takeToken(previous?.bucket, { perMinute: limits.perMinute, capacity: limits.burst ?? limits.perMinute }, nowMs)
  const quota = limits.perDay === null ? undefined : takeQuota(previous?.quota, limits.perDay, nowMs)
  if (bucket === undefined && quota === undefined) return undefined
  const allowed = (bucket?.allowed ?? true) && (quota?.allowed ?? true)
  // A refused request does not use up the daily quota.
  const keptQuota = allowed ? quota?.state : previous?.quota
  const next: KeyLimitState = {
    ...(bucket === undefined ? {} : { bucket: bucket.state }),
    ...(keptQuota === undefined ? {} : { quota: keptQuota }),
  }
  const quotaBinds = quota !== undefined && (!quota.allowed || bucket === undefined)
  // A token bucket's limit is its size, so Remaining never exceeds Limit.
  const limit = quotaBinds ? limits.perDay! : (limits.burst ?? limits.perMinute!)
  const verdict = {
    allowed,
    next,
    limit,
    remaining: Math.min(bucket?.remaining ?? Infinity, quota?.remaining ?? Infinity),
    resetSeconds: seconds(quotaBinds ? quota.resetInMs : bucket!.fullInMs),
  }
  if (allowed) return verdict
  if (quota !== undefined && !quota.allowed) return { ...verdict, refusal: refusalOf(limits, 'daily', quota.resetInMs) }
  return { ...verdict, refusal: refusalOf(limits, 'burst', bucket!.retryAfterMs) }
}
