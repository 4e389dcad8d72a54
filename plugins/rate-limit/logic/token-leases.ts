// A key's shared limit state with the slices (leases) that processes take of it. A process takes
// a slice of requests in one store transaction and admits them from memory; each token of a slice
// is taken from the minute bucket and counted in the day's quota when it is leased, so what all
// processes admit never passes what one bucket and one count would admit:
//
// - Quota: a leased request counts as used at once; giving back unused ones uncounts them (only
//   on the day they were leased for). The day's count never passes perDay.
// - Bucket: the bucket refills only up to its capacity less the tokens leased out and not yet
//   accounted for, so the free tokens plus every unused leased token never exceed the capacity,
//   and in any interval T the processes admit at most capacity + rate × T, as one bucket would.
//   A lease lapses at `untilMs`: its process admits nothing more from it, and the store then
//   forgets it (its unused tokens count as spent), so a process killed with -9 holds back at most
//   its slice, and only until its lease lapses; the bucket refills it as if it had been used.
//
// Pure: the caller keeps the state and the clock.
import type { PlanLimits } from '../schema.ts'
import type { KeyLimitState, RefusedBy } from './check-limits.ts'

export interface TokenLease {
  /** Bucket tokens leased to the process and not yet given back or accounted for as used. */
  readonly tokens: number
  readonly untilMs: number
}

export interface SharedLimitState extends KeyLimitState {
  /** By owning process. */
  readonly leases?: Readonly<Record<string, TokenLease>>
}

export interface LeaseAsk {
  readonly owner: string
  /** Requests waiting for the slice; 0 to only give back. */
  readonly need: number
  /** What the owner's last slice left unused, given back: every other request of it was admitted. */
  readonly unused: number
  /** The UTC day (days since the epoch) the unused requests were leased for. */
  readonly unusedDay: number
}

export interface LeaseGrant {
  readonly next: SharedLimitState
  /** Requests the owner may admit from memory until `untilMs`, on the day of the grant. */
  readonly granted: number
  readonly untilMs: number
  /** Whole and fractional bucket tokens free for every process after the grant; undefined without a minute limit. */
  readonly bucketFree?: number
  /** Requests of the day left for every process after the grant; undefined without a daily quota. */
  readonly quotaFree?: number
  /** Set when fewer than `need` were granted: the limit that ran out and when to try again. */
  readonly refused?: { readonly by: RefusedBy; readonly retryAfterMs: number }
}

export const DAY_MS = 86_400_000

/** How long a slice may be drawn on: a process renews it (one transaction) at least this often while it is in use. */
export const LEASE_LIFE_MS = 5_000

// A slice takes, beyond the requests waiting, 1/16 of what is left, at most 256 more, and nothing
// more when fewer than 64 are left: near the limit every request is leased one by one, so a process
// refuses while another holds an unused slice only when under 64 + 1/16 of the rest were left.
const SHARE_OF_REST = 16
const MAX_SPARE = 256
const MIN_LEFT = 64

export const dayOf = (nowMs: number) => Math.floor(nowMs / DAY_MS)

/** How many requests beyond `need` a slice takes when `rest` are left beyond them. */
export function spareOf(rest: number): number {
  if (rest < MIN_LEFT) return 0
  return Math.min(Math.floor(rest / SHARE_OF_REST), MAX_SPARE)
}

function liveLeases(leases: SharedLimitState['leases'], nowMs: number): Record<string, TokenLease> {
  const live: Record<string, TokenLease> = {}
  for (const [owner, lease] of Object.entries(leases ?? {})) if (lease.untilMs > nowMs) live[owner] = lease
  return live
}

/**
 * Gives back the owner's unused requests and leases it up to `ask.need` plus a spare, in one step
 * on the shared state (one store transaction). The owner's previous lease ends here: its tokens
 * are either given back or used.
 */
export function leaseTokens(limits: PlanLimits, previous: SharedLimitState | undefined, nowMs: number, ask: LeaseAsk, lifeMs = LEASE_LIFE_MS): LeaseGrant {
  const leases = liveLeases(previous?.leases, nowMs)
  const own = leases[ask.owner]
  delete leases[ask.owner]

  let bucketFree: number | undefined
  let capacity = 0
  const perMs = (limits.perMinute ?? 0) / 60_000
  if (limits.perMinute !== null) {
    capacity = limits.burst ?? limits.perMinute
    const held = Object.values(leases).reduce((sum, lease) => sum + lease.tokens, own?.tokens ?? 0)
    const room = capacity - held
    const stored = previous?.bucket
    const refilled = stored === undefined ? room : Math.min(room, stored.tokens + Math.max(0, nowMs - stored.updatedMs) * perMs)
    // A lapsed lease's tokens count as spent: only a live one's come back.
    bucketFree = Math.max(0, refilled) + (own === undefined ? 0 : Math.min(ask.unused, own.tokens))
  }

  let used = 0
  const day = dayOf(nowMs)
  if (limits.perDay !== null) {
    used = previous?.quota?.day === day ? previous.quota.used : 0
    if (ask.unusedDay === day) used = Math.max(0, used - ask.unused)
  }
  const quotaFree = limits.perDay === null ? undefined : limits.perDay - used

  const available = Math.min(bucketFree === undefined ? Infinity : Math.floor(bucketFree), quotaFree ?? Infinity)
  const granted = ask.need === 0 ? 0 : available < ask.need ? Math.max(0, available) : ask.need + spareOf(available - ask.need)
  const untilMs = nowMs + lifeMs

  const bucketAfter = bucketFree === undefined ? undefined : bucketFree - granted
  if (bucketAfter !== undefined && granted > 0) leases[ask.owner] = { tokens: granted, untilMs }
  const next: SharedLimitState = {
    ...(bucketAfter === undefined ? {} : { bucket: { tokens: bucketAfter, updatedMs: nowMs } }),
    ...(limits.perDay === null ? {} : { quota: { day, used: used + granted } }),
    ...(Object.keys(leases).length === 0 ? {} : { leases }),
  }
  const grant = {
    next,
    granted,
    untilMs,
    ...(bucketAfter === undefined ? {} : { bucketFree: bucketAfter }),
    ...(quotaFree === undefined ? {} : { quotaFree: quotaFree - granted }),
  }
  if (granted >= ask.need) return grant
  // The quota binds when it is what ran out (it refuses for the rest of the day).
  if (quotaFree !== undefined && quotaFree <= available) return { ...grant, refused: { by: 'daily', retryAfterMs: (day + 1) * DAY_MS - nowMs } }
  return { ...grant, refused: { by: 'burst', retryAfterMs: Math.ceil((1 - bucketAfter!) / perMs) } }
}
