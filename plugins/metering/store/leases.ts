// Budget holds for processes sharing one LMDB store (serve --workers), without a store transaction
// per request. Each process leases a slice of a month's budget in the store, where every process
// sees it as reserved, and carves its requests' holds from the slice in memory: a check and an add
// on one thread cannot interleave, so a slice is never carved beyond its size, and the slices with
// the month's spend never pass the limit. A settlement shrinks the slice by its hold in the same
// commit that charges it; what a process leaves unused goes back after a second without requests,
// at a graceful stop, or at the next start's recovery after a crash (the lease is a reservation
// owned by its process, like a hold).
//
// A slice takes, beyond the hold that asked for it, 1/16 of what the month has left, at most 256
// such holds, and nothing when under 64 holds are left: so near the limit every hold is leased
// exactly, and a refusal while another process still holds an unused slice can happen only with
// less than that slice left (see docs/operating.md, Running several processes).
import type { BudgetHolds, Hold, LeasedHold } from './records.ts'
import { ADMITTED, type LeaseResult, type ReserveResult } from '../logic/admit.ts'
import { covers } from '../logic/budget.ts'

/** Where leases are kept: the LMDB ledger, or PostgreSQL shared by several gateways. */
export interface LeaseStore {
  /**
   * Adds to this process's lease on the month `needMicros` and, of what is left beyond them, as
   * much as `spare` gives; or, when the month cannot cover `needMicros`, adds nothing and notes the limit.
   */
  growLease(projectId: string, month: string, needMicros: number, limitMicros: number, spare: (beyondMicros: number) => number): Promise<LeaseResult>
  /** Gives back what `micros()` says the lease holds unused (asked as late as the store can); resolves with the amount. */
  returnLease(projectId: string, month: string, micros: () => number): Promise<number>
}

const SHARE_OF_REST = 16
const MAX_HOLDS_SPARE = 256
const MIN_HOLDS_LEFT = 64

interface Lease {
  readonly projectId: string
  /** Its stored lease may have been taken over (a gateway presumed gone): its holds no longer shrink the stored one. */
  lapsed: boolean
  readonly month: string
  /** What this process's lease holds, as far as its own settlements go (the store's shrinks at their commits). */
  micros: number
  /** Carved for running requests. */
  carved: number
  /** A growth in flight: one at a time, the others wait for it and look again. */
  growing: Promise<unknown> | undefined
  usedSinceSweep: boolean
}

interface LeasedHolds extends BudgetHolds {
  /**
   * The leased part of a hold being settled, which the settlement's commit shrinks the stored
   * lease by; undefined when its lease lapsed.
   */
  settling(hold: Hold): LeasedHold | undefined
  /** Gives back what leases unused since the last sweep hold. */
  returnIdle(): Promise<void>
  /**
   * Forgets every lease: the store's were taken over or dropped (the gateway was presumed gone).
   * Holds carved from them settle without shrinking any.
   */
  lapse(): void
  /** Stops the sweeps and gives back what every lease holds unused. */
  close(): Promise<void>
}

interface LeaseOptions {
  /** Undefined when holds may be carved now; else a promise to wait for first (the gateway's own lease renewed). */
  readonly ready?: () => Promise<void> | undefined
  /** Where a sweep's failure goes (it is tried again at the next sweep). */
  readonly track: (work: Promise<unknown>) => void
}

/** How often leases unused since the last look are given back: between one and two of these idle. */
const SWEEP_EVERY_MS = 1_000

/** How much of what the month has left beyond a hold of `needMicros` its slice takes as well. */
export function spareOf(needMicros: number, beyondMicros: number): number {
  if (beyondMicros < needMicros * MIN_HOLDS_LEFT) return 0
  return Math.min(Math.floor(beyondMicros / SHARE_OF_REST), needMicros * MAX_HOLDS_SPARE)
}

export function leasedHolds(ledger: LeaseStore, { ready, track }: LeaseOptions): LeasedHolds {
  let leases = new Map<string, Lease>()
  const carvedFrom = new WeakMap<Hold, Lease>()

  function leaseOf(hold: Hold): Lease {
    const key = `${hold.projectId}/${hold.month}`
    let lease = leases.get(key)
    if (lease === undefined) {
      lease = { projectId: hold.projectId, month: hold.month, lapsed: false, micros: 0, carved: 0, growing: undefined, usedSinceSweep: true }
      leases.set(key, lease)
    }
    return lease
  }

  function carve(lease: Lease, hold: Hold): boolean {
    lease.usedSinceSweep = true
    if (lease.growing !== undefined || !covers(lease.micros - lease.carved, hold.micros)) return false
    lease.carved += hold.micros
    carvedFrom.set(hold, lease)
    return true
  }

  async function grown(lease: Lease, hold: Hold, limitMicros: number): Promise<ReserveResult> {
    for (;;) {
      while (lease.growing !== undefined) {
        await lease.growing.catch(() => undefined)
        if (carve(lease, hold)) return ADMITTED
      }
      const need = hold.micros - (lease.micros - lease.carved)
      const growing = ledger.growLease(lease.projectId, lease.month, need, limitMicros, (beyond) => spareOf(need, beyond))
      lease.growing = growing
      let result: LeaseResult
      try {
        result = await growing
      } finally {
        lease.growing = undefined
      }
      if ('availableMicros' in result) return { ok: false, availableMicros: result.availableMicros + Math.max(0, lease.micros - lease.carved) }
      lease.micros += result.grantedMicros
      if (carve(lease, hold)) return ADMITTED
    }
  }

  function giveBack(lease: Lease): Promise<void> {
    return ledger
      .returnLease(lease.projectId, lease.month, () => {
        const unused = lease.growing === undefined ? lease.micros - lease.carved : 0
        lease.micros -= unused
        return unused
      })
      .then(() => {
        if (lease.micros === 0 && lease.carved === 0 && leases.get(`${lease.projectId}/${lease.month}`) === lease)
          leases.delete(`${lease.projectId}/${lease.month}`)
      })
  }

  function reserveNow(hold: Hold, limitMicros: number): ReserveResult | Promise<ReserveResult> {
    const lease = leaseOf(hold)
    return carve(lease, hold) ? ADMITTED : grown(lease, hold, limitMicros)
  }

  async function returnIdle(): Promise<void> {
    const idle: Lease[] = []
    for (const lease of leases.values()) {
      if (!lease.usedSinceSweep && lease.micros > lease.carved) idle.push(lease)
      lease.usedSinceSweep = false
    }
    await Promise.all(idle.map(giveBack))
  }

  const sweeps = setInterval(() => track(returnIdle()), SWEEP_EVERY_MS)
  sweeps.unref()

  return {
    reserve(hold, limitMicros) {
      const waiting = ready?.()
      return waiting === undefined ? reserveNow(hold, limitMicros) : waiting.then(() => reserveNow(hold, limitMicros))
    },
    settling(hold) {
      // The hold's amount leaves the lease as its charge counts: what is free of it stays as it was.
      const lease = carvedFrom.get(hold)
      if (lease === undefined) return undefined
      carvedFrom.delete(hold)
      lease.carved -= hold.micros
      lease.micros -= hold.micros
      return lease.lapsed ? undefined : { month: hold.month, micros: hold.micros }
    },
    // settling() already gave the hold back, as its settlement was written.
    release: () => undefined,
    returnIdle,
    lapse() {
      for (const lease of leases.values()) lease.lapsed = true
      leases = new Map()
    },
    async close() {
      clearInterval(sweeps)
      await Promise.all([...leases.values()].filter((lease) => lease.micros > lease.carved).map(giveBack))
    },
  }
}
