import { z } from 'zod'

export const meteringSchema = z.strictObject({
  /** Refuse requests whose worst-case cost does not fit the remaining monthly budget. */
  enforceBudgets: z.boolean().default(true),
  /**
   * What a request to a model without a price (a name unpricedModels lets through) holds of the
   * budget while it runs, in dollars: its cost is not known, so no token count bounds it.
   */
  unpricedHoldDollars: z.number().nonnegative().max(1_000_000).default(1),
  /** Hold budgets in the store so that processes sharing it see each other's holds (set by --workers). */
  shared: z.boolean().default(false),
  /**
   * On PostgreSQL: how long a gateway that stopped renewing its lease (it died) keeps its budget
   * holds, before any other gateway gives them back and settles its streams to their last checkpoint.
   */
  holdLeaseMs: z.number().int().min(300).max(600_000).default(30_000),
  /** How often a running stream's progress is written to the store, for settling it after a crash. */
  checkpointIntervalMs: z.number().int().min(100).max(60_000).default(1000),
  /**
   * How long a count of streamed text may take in the worker pool, queue included, before it is
   * counted on the event loop instead: a worker that never answers must not stop a settlement.
   * A task of 32,768 characters counts in well under a second even for the slowest text.
   */
  countTimeoutMs: z.number().int().min(10).max(600_000).default(10_000),
})

export type MeteringConfig = z.output<typeof meteringSchema>
