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
// less than that slice left (see README, Running several processes).
import type { Hold, BudgetHolds } from './budget-holds.ts'
import type { Ledger, LeasedHold, ReserveResult } from './ledger.ts'

const SHARE_OF_REST = 16
const MAX_HOLDS_SPARE = 256
const MIN_HOLDS_LEFT = 64

interface Lease {
  readonly projectId: string
  readonly month: string
  /** What this process's lease holds, as far as its own settlements go (the store's shrinks at their commits). */
  micros: number
  /** Carved for running requests. */
  carved: number
  /** A growth in flight: one at a time, the others wait for it and look again. */
  growing: Promise<unknown> | undefined
  usedSinceSweep: boolean
}

export interface LeasedHolds extends BudgetHolds {
  /** The leased part of a hold being settled: the settlement's commit shrinks the stored lease by it. */
  settling(hold: Hold): LeasedHold
  /** Gives back what leases unused since the last sweep hold. */
  returnIdle(): Promise<void>
  /** Gives back what every lease holds unused. */
  returnAll(): Promise<void>
}

const ADMITTED: ReserveResult = { ok: true }

/** How much of what the month has left beyond a hold of `needMicros` its slice takes as well. */
export function spareOf(needMicros: number, beyondMicros: number): number {
  if (beyondMicros < needMicros * MIN_HOLDS_LEFT) return 0
  return Math.min(Math.floor(beyondMicros / SHARE_OF_REST), needMicros * MAX_HOLDS_SPARE)
}

export function leasedHolds(ledger: Ledger): LeasedHolds {
  const leases = new Map<string, Lease>()

  function leaseOf(hold: Hold): Lease {
    const key = `${hold.projectId}/${hold.month}`
    let lease = leases.get(key)
    if (lease === undefined) {
      lease = { projectId: hold.projectId, month: hold.month, micros: 0, carved: 0, growing: undefined, usedSinceSweep: true }
      leases.set(key, lease)
    }
    return lease
  }

  function carve(lease: Lease, micros: number): boolean {
    lease.usedSinceSweep = true
    if (lease.growing !== undefined || lease.micros - lease.carved < micros) return false
    lease.carved += micros
    return true
  }

  async function grown(lease: Lease, hold: Hold, limitMicros: number): Promise<ReserveResult> {
    for (;;) {
      while (lease.growing !== undefined) {
        await lease.growing.catch(() => undefined)
        if (carve(lease, hold.micros)) return ADMITTED
      }
      const need = hold.micros - (lease.micros - lease.carved)
      const growing = ledger.growLease(lease.projectId, lease.month, need, limitMicros, (beyond) => spareOf(need, beyond))
      lease.growing = growing
      let result
      try {
        result = await growing
      } finally {
        lease.growing = undefined
      }
      if ('availableMicros' in result) return { ok: false, availableMicros: result.availableMicros + Math.max(0, lease.micros - lease.carved) }
      lease.micros += result.grantedMicros
      if (carve(lease, hold.micros)) return ADMITTED
    }
  }

  function giveBack(lease: Lease): Promise<void> {
    return ledger.returnLease(lease.projectId, lease.month, () => {
      const unused = lease.growing === undefined ? lease.micros - lease.carved : 0
      lease.micros -= unused
      return unused
    }).then(() => {
      if (lease.micros === 0 && lease.carved === 0 && leases.get(`${lease.projectId}/${lease.month}`) === lease) leases.delete(`${lease.projectId}/${lease.month}`)
    })
  }

  return {
    reserve(hold, limitMicros) {
      const lease = leaseOf(hold)
      return carve(lease, hold.micros) ? ADMITTED : grown(lease, hold, limitMicros)
    },
    settling(hold) {
      // The hold's amount leaves the lease as its charge counts: what is free of it stays as it was.
      const lease = leaseOf(hold)
      lease.carved -= hold.micros
      lease.micros -= hold.micros
      return { month: hold.month, micros: hold.micros }
    },
    // settling() already gave the hold back, as its settlement was written.
    release: () => undefined,
    async returnIdle() {
      const idle: Lease[] = []
      for (const lease of leases.values()) {
        if (!lease.usedSinceSweep && lease.micros > lease.carved) idle.push(lease)
        lease.usedSinceSweep = false
      }
      await Promise.all(idle.map(giveBack))
    },
    async returnAll() {
      await Promise.all([...leases.values()].filter((lease) => lease.micros > lease.carved).map(giveBack))
    },
  }
}
