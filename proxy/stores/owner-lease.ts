// A gateway's lease on the rows it owns in a plugin's table of owners (`owner text PRIMARY KEY,
// expires_at bigint`). Rows whose owner's lease ran out were left by a gateway that is gone, and
// any other gateway may take them over; so a gateway renews before every third of the lease passes.
import type { Clock } from '../kit/clock.ts'
import type { Sql } from './database.ts'

interface OwnerLease {
  renew(): Promise<void>
  /** Renews first if a renewal was missed (the database was away), so what is taken next is not taken over at once. */
  current(): Promise<void>
  /** Whether a third or more of the lease is left: what is taken now is not taken over before the next renewal. */
  fresh(): boolean
  /** Stopped on purpose: what this gateway still holds is taken over at once, without waiting for the lease. */
  end(): Promise<void>
  /** How often to renew. */
  readonly renewEveryMs: number
}

/**
 * `onLapse` runs when a renewal finds the lease had run out (the database was away that long), so
 * that what this gateway kept of its rows may have been taken over; the lease counts as renewed
 * once it is done.
 */
export async function takeOwnerLease(
  sql: Sql,
  table: string,
  owner: string,
  leaseMs: number,
  clock: Clock,
  onLapse?: () => Promise<void>,
): Promise<OwnerLease> {
  let until = 0
  const renew = async () => {
    const lapsed = until !== 0 && clock.now() > until
    const next = clock.now() + leaseMs
    await sql.query(`INSERT INTO ${table} (owner, expires_at) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET expires_at = excluded.expires_at`, [
      owner,
      next,
    ])
    if (lapsed) await onLapse?.()
    until = next
  }
  await renew()
  return {
    renew,
    async current() {
      if (until - clock.now() < leaseMs / 3) await renew()
    },
    fresh: () => until - clock.now() >= leaseMs / 3,
    async end() {
      await sql.query(`UPDATE ${table} SET expires_at = 0 WHERE owner = $1`, [owner]).catch(() => undefined)
    },
    renewEveryMs: Math.max(1, Math.floor(leaseMs / 3)),
  }
}
