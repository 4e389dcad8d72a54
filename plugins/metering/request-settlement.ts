// Settling a request that passed metering: its ledger entry, charged up to its hold, recorded,
// counted in the metrics and reported in ctx.charge; and a replayed answer (idempotency), which
// settles its original's entry instead of charging again.
import type { CompletionResult } from '../../proxy/pipeline/completion.ts'
import type { RequestContext } from '../../proxy/pipeline/context.ts'
import type { Clock } from '../../proxy/kit/clock.ts'
import type { ModelCatalog } from '../../proxy/pipeline/catalog.ts'
import { microsOfDollars } from '../../proxy/pipeline/price.ts'
import type { IdempotencyState } from '../idempotency/state.ts'
import type { BudgetGuard } from './budget-guard.ts'
import { remainingMicros } from './logic/budget.ts'
import type { Metered } from './logic/metered.ts'
import { dayKey, monthKey } from './logic/periods.ts'
import type { ChargeMetrics } from './metrics.ts'
import type { MeteringStore } from './store/index.ts'
import { durableRow, type Hold, type LedgerEntry } from './store/records.ts'

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

interface RequestSettlementDeps {
  readonly guard: BudgetGuard
  readonly ledger: MeteringStore
  readonly clock: Clock
  readonly catalog: Pick<ModelCatalog, 'info' | 'metricName'>
  readonly metrics: ChargeMetrics
  readonly track: (work: Promise<unknown>) => void
  /** The hold the request took as it passed metering; undefined when it took none. */
  readonly holdOf: (ctx: RequestContext) => Hold | undefined
}

export interface RequestSettlement {
  /** The request's entry for `figures`, charged up to its hold, with the outcome `outcome`. */
  entryOf(ctx: RequestContext, figures: Metered, outcome: string): LedgerEntry
  /**
   * Charges the request. Synchronous when the settlement was journaled (the usual case, on LMDB
   * and PostgreSQL alike): the answer need not wait for the ledger's commit, which follows in the
   * background. A promise when it was not (a journal that could not be written, or on PostgreSQL
   * the first settlement of a month this gateway has not read), so the answer waits for the commit.
   */
  settle(ctx: RequestContext, entry: LedgerEntry, checkpointed: boolean): Promise<void> | undefined
  /**
   * A replayed answer settles its original's entry, with the original's id and figures: a no-op
   * when the original was charged, its one charge when a crash came between the idempotency
   * commit and the ledger's. The replay itself is charged nothing and reports so (the spec's
   * x-credits-charged is what this request cost), with the budget left now.
   */
  settleReplay(ctx: RequestContext, replay: IdempotencyState, result: CompletionResult): Promise<void>
}

export function requestSettlement({ guard, ledger, clock, catalog, metrics, track, holdOf }: RequestSettlementDeps): RequestSettlement {
  // One literal with the optional fields added after: spreading them in made a slow
  // dictionary-mode object, which the journal's JSON and the store's encoding then paid for again.
  function entryOf(ctx: RequestContext, figures: Metered, outcome: string): LedgerEntry {
    const auth = ctx.state.auth!
    const now = clock.now()
    const charge = guard.charge(figures.costMicros, holdOf(ctx))
    const entry: Mutable<LedgerEntry> = {
      id: ctx.id,
      projectId: auth.project.id,
      keyId: auth.keyId,
      at: new Date(now).toISOString(),
      month: monthKey(now),
      day: dayKey(now),
      provider: figures.provider,
      model: figures.model,
      promptTokens: figures.promptTokens,
      completionTokens: figures.completionTokens,
      costMicros: charge.costMicros,
      cacheHit: figures.cacheHit,
      outcome,
    }
    const { user, tags } = ctx.ai!
    if (user !== undefined) entry.user = user
    if (tags !== undefined) entry.tags = tags
    if (figures.cachedInputTokens !== undefined) entry.cachedInputTokens = figures.cachedInputTokens
    if (figures.cacheWriteTokens !== undefined) entry.cacheWriteTokens = figures.cacheWriteTokens
    if (charge.overageMicros !== undefined) entry.overageMicros = charge.overageMicros
    // A name the config lets through unpriced is charged nothing, and says so.
    if (!figures.cacheHit && !catalog.info(figures.model).priced) entry.unpriced = 'no_price'
    return entry
  }

  function charged(ctx: RequestContext, entry: LedgerEntry, usedMicros: number): void {
    // Names let through unpriced are the client's own: one bounded label stands for them all.
    metrics.charged(entry, catalog.metricName(entry.model))
    // ctx.log makes the request's logger, which a request without an overage never needs.
    if (entry.overageMicros !== undefined) guard.noteOverage(entry, ctx.log)
    ctx.charge = {
      chargedDollars: entry.costMicros / 1e6,
      remainingDollars: remainingMicros(usedMicros, microsOfDollars(ctx.state.auth!.project.budgetDollars)) / 1e6,
    }
  }

  return {
    entryOf,

    settle(ctx, entry, checkpointed) {
      const settled = guard.settle(entry, ctx.state.auth!.project, holdOf(ctx), checkpointed, (row) => charged(ctx, entry, row.usedMicros))
      return settled instanceof Promise ? settled : undefined
    },

    async settleReplay(ctx, replay, result) {
      const project = ctx.state.auth!.project
      if ((await ledger.entry(replay.replayOf)) === undefined) {
        const entry: LedgerEntry = {
          id: replay.replayOf,
          projectId: project.id,
          keyId: replay.keyId,
          at: new Date(replay.answeredAt).toISOString(),
          month: monthKey(replay.answeredAt),
          day: dayKey(replay.answeredAt),
          provider: result.provider,
          model: result.model,
          promptTokens: result.usage.promptTokens,
          completionTokens: result.usage.completionTokens,
          costMicros: replay.chargedMicros,
          cacheHit: result.cacheHit,
          outcome: result.cacheHit ? 'cache_hit' : 'ok',
          // A replay's request hashes the same as its original's, so it names the same user and tags.
          ...(ctx.ai?.user === undefined ? {} : { user: ctx.ai.user }),
          ...(ctx.ai?.tags === undefined ? {} : { tags: ctx.ai.tags }),
        }
        const settled = ledger.settle(entry, microsOfDollars(project.budgetDollars), { hold: undefined, checkpointed: true })
        track(settled.committed)
        await durableRow(settled, () => undefined)
      }
      const used = (await ledger.budget(project.id, monthKey(clock.now()))).usedMicros
      ctx.charge = { chargedDollars: 0, remainingDollars: remainingMicros(used, microsOfDollars(project.budgetDollars)) / 1e6 }
    },
  }
}
