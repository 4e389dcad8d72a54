import { z } from 'zod'

export const idempotencySchema = z.strictObject({
  /** How long a retry waits for the same key's request running in this process before answering 409. */
  waitMs: z.int().nonnegative().default(30_000),
  /** A run older than this is abandoned even when its process seems alive (a restarted host can reuse its pid). */
  inFlightLeaseMs: z.int().positive().default(3_600_000),
  /**
   * On a shared database (DATABASE_URL): how long a gateway that stopped renewing its lease keeps
   * the keys it runs, before a retry on another gateway takes them over. Renewed every third of it.
   */
  ownerLeaseMs: z.int().min(300).max(600_000).default(30_000),
  /** How often expired records are removed (they are also ignored on read), and how many at most per round. */
  sweepIntervalMs: z.int().positive().default(60_000),
  sweepBatch: z.int().positive().default(500),
})
