// Limits shared by several processes without a store round trip per request: each process leases
// a slice of a key's requests from the shared state (logic/token-leases.ts says why the slices
// never let a limit pass) and admits requests from it in memory; a check and a take on one thread
// cannot interleave, so a slice is never drawn beyond its size. Requests that find the slice empty
// wait for one growth at a time, which asks for all of them at once. What a slice leaves unused
// goes back after a second or two without requests, and at close.
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { LimitVerdict } from '../logic/check-limits.ts'
import { leaseVerdict } from '../logic/lease-verdict.ts'
import { dayOf, type LeaseGrant } from '../logic/token-leases.ts'
import type { PlanLimits } from '../schema.ts'
import type { LimitStore } from './index.ts'

export interface Unused {
  readonly count: number
  /** The UTC day they were leased for. */
  readonly day: number
}

/** The shared state's one atomic step (a store transaction, a Redis script). */
export interface LeaseBackend {
  /**
   * Gives back what `unused()` says this process's slice of keyId holds (asked as late as the
   * backend can, so requests admitted meanwhile are not given back) and leases up to `need` more.
   */
  lease(keyId: string, limits: PlanLimits, nowMs: number, need: number, unused: () => Unused): Promise<LeaseGrant>
}

export interface LeasedLimits extends LimitStore {
  /** Gives back what slices unused since the last sweep hold. */
  returnIdle(): Promise<void>
  /** Stops the sweeps and gives back every slice. */
  close(): Promise<void>
}

interface Waiter {
  readonly limits: PlanLimits
  readonly nowMs: number
  readonly resolve: (verdict: LimitVerdict) => void
  readonly reject: (error: unknown) => void
}

interface Lease {
  readonly keyId: string
  limits: PlanLimits
  /** Requests this process may still admit from its slice. */
  left: number
  /** Drawn on until then: a margin before the store lets the slice lapse. */
  untilMs: number
  day: number
  /** The shared figures after the last lease, without this process's slice. */
  bucketFree: number | undefined
  quotaFree: number | undefined
  /** The last refusal, repeated without asking the store until `untilMs`. */
  refused: { readonly by: 'burst' | 'daily'; readonly retryAtMs: number; readonly untilMs: number } | undefined
  readonly waiting: Waiter[]
  /** A lease or a give-back in flight: one at a time. */
  busy: boolean
  usedSinceSweep: boolean
}

/** How often slices unused since the last look are given back: between one and two of these idle. */
const SWEEP_EVERY_MS = 1_000
// A refusal holds until a token is free again or others give theirs back; asking the store again
// after a second keeps a key hammering past its limit from costing a transaction per request.
const REFUSAL_MEMORY_MS = 1_000
// Across hosts the store may judge a slice by a clock a little ahead of this one: a process stops
// drawing on its slice this long before the store lets it lapse.
const CLOCK_MARGIN_MS = 1_000

export function leasedLimits(
  backend: LeaseBackend,
  { clock, track }: { readonly clock: Clock; readonly track: (work: Promise<unknown>) => void },
): LeasedLimits {
  const leases = new Map<string, Lease>()

  function leaseOf(keyId: string, limits: PlanLimits): Lease {
    let lease = leases.get(keyId)
    if (lease === undefined) {
      lease = {
        keyId,
        limits,
        left: 0,
        untilMs: 0,
        day: 0,
        bucketFree: undefined,
        quotaFree: undefined,
        refused: undefined,
        waiting: [],
        busy: false,
        usedSinceSweep: true,
      }
      leases.set(keyId, lease)
    }
    lease.limits = limits
    lease.usedSinceSweep = true
    return lease
  }

  const figures = (lease: Lease) => ({
    ...(lease.bucketFree === undefined ? {} : { bucketTokens: lease.bucketFree + lease.left }),
    ...(lease.quotaFree === undefined ? {} : { quotaLeft: lease.quotaFree + lease.left }),
  })

  function admit(lease: Lease, limits: PlanLimits, nowMs: number): LimitVerdict {
    lease.left--
    return leaseVerdict(limits, figures(lease), nowMs)
  }

  function refuse(lease: Lease, limits: PlanLimits, nowMs: number): LimitVerdict {
    const { by, retryAtMs } = lease.refused!
    return leaseVerdict(limits, figures(lease), nowMs, { by, retryAfterMs: retryAtMs - nowMs })
  }

  function takeUnused(lease: Lease): Unused {
    const unused = { count: lease.left, day: lease.day }
    lease.left = 0
    return unused
  }

  function settle(lease: Lease, grant: LeaseGrant, nowMs: number): void {
    lease.left = grant.granted
    // Nothing granted, nothing of this process's is left in the store to give back.
    lease.untilMs = grant.granted > 0 ? grant.untilMs - CLOCK_MARGIN_MS : 0
    lease.day = dayOf(nowMs)
    lease.bucketFree = grant.bucketFree
    lease.quotaFree = grant.quotaFree
    lease.refused =
      grant.refused === undefined
        ? undefined
        : { by: grant.refused.by, retryAtMs: nowMs + grant.refused.retryAfterMs, untilMs: nowMs + Math.min(grant.refused.retryAfterMs, REFUSAL_MEMORY_MS) }
  }

  async function grow(lease: Lease): Promise<void> {
    lease.busy = true
    try {
      while (lease.waiting.length > 0) {
        const { limits, nowMs } = lease.waiting.at(-1)!
        settle(lease, await backend.lease(lease.keyId, limits, nowMs, lease.waiting.length, () => takeUnused(lease)), nowMs)
        while (lease.waiting.length > 0 && lease.left >= 1) {
          const waiter = lease.waiting.shift()!
          waiter.resolve(admit(lease, waiter.limits, waiter.nowMs))
        }
        if (lease.refused !== undefined) for (const waiter of lease.waiting.splice(0)) waiter.resolve(refuse(lease, waiter.limits, waiter.nowMs))
      }
    } catch (err) {
      for (const waiter of lease.waiting.splice(0)) waiter.reject(err)
    } finally {
      lease.busy = false
    }
  }

  async function giveBack(lease: Lease): Promise<void> {
    lease.busy = true
    try {
      await backend.lease(lease.keyId, lease.limits, clock.now(), 0, () => takeUnused(lease))
    } finally {
      lease.busy = false
      if (lease.waiting.length > 0) void grow(lease)
      else if (lease.left === 0 && leases.get(lease.keyId) === lease) leases.delete(lease.keyId)
    }
  }

  /** Whether the store may still count something of this slice: unused requests, or its tokens before it lapses. */
  const holdsAny = (lease: Lease, nowMs: number) => lease.left > 0 || nowMs < lease.untilMs

  async function returnIdle(): Promise<void> {
    const nowMs = clock.now()
    const idle: Lease[] = []
    for (const lease of leases.values()) {
      if (!lease.usedSinceSweep && !lease.busy) {
        if (holdsAny(lease, nowMs)) idle.push(lease)
        else leases.delete(lease.keyId)
      }
      lease.usedSinceSweep = false
    }
    await Promise.all(idle.map(giveBack))
  }

  const sweeps = setInterval(() => track(returnIdle()), SWEEP_EVERY_MS)
  sweeps.unref()

  return {
    check(keyId, limits, nowMs) {
      if (limits.perMinute === null && limits.perDay === null) return undefined
      const lease = leaseOf(keyId, limits)
      if (lease.waiting.length === 0) {
        if (lease.left >= 1 && nowMs < lease.untilMs && dayOf(nowMs) === lease.day) return admit(lease, limits, nowMs)
        if (lease.refused !== undefined && nowMs < lease.refused.untilMs) return refuse(lease, limits, nowMs)
      }
      return new Promise<LimitVerdict>((resolve, reject) => {
        lease.waiting.push({ limits, nowMs, resolve, reject })
        if (!lease.busy) void grow(lease)
      })
    },
    returnIdle,
    async close() {
      clearInterval(sweeps)
      const nowMs = clock.now()
      await Promise.all([...leases.values()].filter((lease) => !lease.busy && holdsAny(lease, nowMs)).map(giveBack))
    },
  }
}
