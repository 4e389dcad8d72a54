// The records metering keeps, whatever the backend: ledger entries, stream checkpoints, the
// figures /api/usage reads, and the holds requests take of their budgets while they run.
import type { BudgetRow } from '../logic/budget.ts'
import type { ReserveResult } from '../logic/admit.ts'

export interface LedgerEntry {
  readonly id: string
  readonly projectId: string
  readonly keyId: string
  readonly at: string
  readonly month: string
  readonly day: string
  readonly provider: string
  readonly model: string
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of promptTokens, read from the provider's prompt cache; absent when it reported none. */
  readonly cachedInputTokens?: number
  /** Of promptTokens, written to the provider's prompt cache; absent when it reported none. */
  readonly cacheWriteTokens?: number
  /** What was charged: the provider's count at list price, never more than the request's hold. */
  readonly costMicros: number
  /** The provider's count beyond the hold, when there was any. */
  readonly overageMicros?: number
  readonly cacheHit: boolean
  readonly outcome: string
  /** Forwarded as it was by the provider pass-through: no cache was asked, so neither a hit nor a miss. */
  readonly passthrough?: true
  /**
   * Its cost is not known, so nothing was charged: no usage was found in the answer, or its
   * model has no price. Counted apart so that such requests are never mistaken for free ones.
   */
  readonly unpriced?: 'no_usage' | 'no_price'
  /** The client's end user: OpenAI's `user`, Anthropic's `metadata.user_id`. */
  readonly user?: string
  /** The request's x-gateway-tags, each once. */
  readonly tags?: readonly string[]
}

/** A stream's progress, written while it runs, so a crash settles it to what was generated. */
export interface StreamCheckpoint {
  readonly entry: LedgerEntry
  /** `pid:bootId` of the process running the stream. */
  readonly owner: string
  readonly limitMicros: number
}

export interface ModelStats {
  readonly requests: number
  readonly tokens: number
  readonly costMicros: number
  /** Requests among them whose cost is unknown (LedgerEntry.unpriced). */
  readonly unpriced?: number
}

export interface DayStats {
  readonly hits: number
  readonly misses: number
  readonly models: Readonly<Record<string, ModelStats>>
}

/** A hold carved from its process's budget lease: the month it was taken in and its amount. */
export interface LeasedHold {
  readonly month: string
  readonly micros: number
}

export interface Settled {
  /**
   * The month's row as this entry leaves it, known at once when the settlement was journaled (or
   * is being: see `written`); undefined when it was not, and only the commit makes it durable.
   */
  readonly row: BudgetRow | undefined
  /** Resolves with the row once the entry is committed to the ledger. */
  readonly committed: Promise<BudgetRow>
  /**
   * Where the journal line is written with the other settlements of its turn (one promise for
   * them all): resolves true once it is, false when it could not be (then only the commit makes
   * the entry durable).
   */
  readonly written?: Promise<boolean>
}

/**
 * `use` of the month's row once the settlement is durable: journaled, else committed. Render no
 * charged answer before. One then per settlement: what follows the row goes in `use`.
 */
export function durableRow<T>({ row, committed, written }: Settled, use: (row: BudgetRow) => T): T | Promise<T> {
  if (written === undefined) return row === undefined ? committed.then(use) : use(row)
  return written.then((ok) => (ok && row !== undefined ? use(row) : committed.then(use)))
}

/** A key's own monthly budget, held beside its project's. */
export interface KeyBudget {
  readonly keyId: string
  readonly limitMicros: number
}

export interface Hold {
  readonly requestId: string
  readonly projectId: string
  readonly month: string
  readonly micros: number
  /** Present when the request's key has a budget of its own: the hold counts against both. */
  readonly key?: KeyBudget
}

export interface BudgetHolds {
  reserve(hold: Hold, limitMicros: number): ReserveResult | Promise<ReserveResult>
  /** Call once the request is settled (its ledger entry committed) or abandoned. */
  release(hold: Hold): void
}
