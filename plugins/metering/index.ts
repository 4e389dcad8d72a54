// Metering and budgets: hold the worst-case cost before the model call, settle to the real cost
// once the answer is known (committed before the response completes, never above the hold), and
// meter a stream cut short for what it generated, through a crash too: a running stream's
// progress is checkpointed from its start (stream-checkpoints.ts), and a restart settles what a
// dead process left to its last checkpoint.
// Streamed text is counted off the event loop when long (count-streamed-text.ts).
// An answer is charged what it cost as the core priced it (a cache hit's cost is nothing);
// what has no answer (an error, a cut stream) is priced here from the model table.
import { Counter } from 'prom-client'
import { modelCatalog } from '../../proxy/pipeline/catalog.ts'
import { boundCounter, type BoundCount } from '../../proxy/metrics.ts'
import type { CompletionResult, ServedBy } from '../../proxy/pipeline/completion.ts'
import { isStreamed, type CompletedContext, type RequestContext } from '../../proxy/pipeline/context.ts'
import { reachedCrashPoint } from '../../proxy/kit/crash-points.ts'
import type { IdempotencyState } from '../idempotency/state.ts'
import { BudgetExceededError } from '../../proxy/pipeline/errors.ts'
import type { ModelPrices } from '../../proxy/pipeline/models.ts'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { Reply } from '../../proxy/http/reply.ts'
import { toMicros, type BudgetRow, type LedgerEntry } from './ledger.ts'
import { dayKey, monthKey } from './periods.ts'
import type { Hold } from './budget-holds.ts'
import { createBudgetGuard } from './budget-guard.ts'
import { lmdbMeteringStore } from './lmdb-store.ts'
import type { MeteringStore, Recovered } from './metering-store.ts'
import { postgresMeteringStore } from './postgres-store.ts'
import { SELF_OWNER } from '../../proxy/stores/process-owner.ts'
import { meteringSchema } from './schema.ts'
import { countStreamedTexts, type PoolRefusal } from './count-streamed-text.ts'
import { streamCheckpoints } from './stream-checkpoints.ts'
import { createUsageMeter } from './usage-service.ts'
import { memberUsageRoute, usageRoute, type KeyLabel } from './usage-route.ts'

/** What one request is recorded with: who served it, its tokens and what it cost at list price. */
interface Metered extends ServedBy {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedInputTokens?: number | undefined
  readonly cacheWriteTokens?: number | undefined
  readonly costMicros: number
  readonly cacheHit: boolean
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

interface ChargeCounters {
  readonly input: BoundCount
  readonly output: BoundCount
  readonly dollars: BoundCount
}

/** Input and output at the model's plain rates: what a hold reserves and what a partial answer costs. */
function plainCost(model: ModelPrices, promptTokens: number, completionTokens: number): number {
  return (promptTokens * model.inputPerMillion + completionTokens * model.outputPerMillion) / 1_000_000
}

export default {
  name: 'metering',
  order: 450,
  gates: ['ai'],
  reads: ['auth', 'router', 'idempotency'],
  schema: meteringSchema,
  async setup(config, { store, database, sharedEvents, clock, log, track, metrics, events, pool, services }) {
    const ledger: MeteringStore = database === undefined
      ? lmdbMeteringStore(store, { shared: config.shared, track, events })
      : await postgresMeteringStore(database, { clock, owner: SELF_OWNER, leaseMs: config.holdLeaseMs, events: sharedEvents })
    const tokensMetered = boundCounter({
      name: 'tollgate_tokens_total', help: 'Tokens metered, by provider, model and direction (cache hits excluded).',
      labelNames: ['provider', 'model', 'direction'], registers: [metrics],
    })
    const dollarsCharged = boundCounter({
      name: 'tollgate_cost_dollars_total', help: 'Dollars charged at list price, by provider and model.',
      labelNames: ['provider', 'model'], registers: [metrics],
    })
    /** The counters of a provider and model, bound to their labels once: a request only adds to numbers. */
    const bound = new Map<string, ChargeCounters>()
    const countersOf = (provider: string, model: string): ChargeCounters => {
      const key = `${provider}\0${model}`
      let counters = bound.get(key)
      if (counters === undefined) {
        counters = {
          input: tokensMetered.bind({ provider, model, direction: 'input' }),
          output: tokensMetered.bind({ provider, model, direction: 'output' }),
          dollars: dollarsCharged.bind({ provider, model }),
        }
        bound.set(key, counters)
      }
      return counters
    }
    const unpricedServed = new Counter({
      name: 'tollgate_unpriced_requests_total', help: 'Model calls served under a name the model table does not list (unpricedModels): charged nothing, recorded as unpriced.',
      labelNames: ['provider'], registers: [metrics],
    })
    const guard = createBudgetGuard({ ledger, clock, metrics, track })
    const keyLabel: KeyLabel = (keyId) => services.registry?.getKey(keyId)
    const countedInline = new Counter({
      name: 'tollgate_metering_pool_fallbacks_total',
      help: 'Pool tasks of streamed text that metering counted on the event loop instead: the pool refused them (overloaded: its queue was full), failed them, or did not finish them in time (timeout).',
      labelNames: ['reason'], registers: [metrics],
    })
    /** Streamed texts' token counts; a pool that refuses them never loses usage, they are counted inline. */
    const countStreamed = (texts: readonly string[]) => countStreamedTexts(texts, pool, (reason: PoolRefusal, err: unknown) => {
      countedInline.inc({ reason })
      if (reason === 'overloaded') log.debug('worker pool full: streamed text counted on the event loop')
      else log.warn({ err, reason }, 'worker pool failed or timed out a count of streamed text: counted on the event loop')
    }, config.countTimeoutMs)
    const noteRecovered = ({ released, recovered, replayed, unreadable }: Recovered) => {
      if (released > 0 || recovered > 0 || replayed > 0) log.warn({ replayed, released, recovered }, 'settled what a stopped process left: journaled charges committed, streams to their last checkpoint, other holds released')
      if (unreadable > 0) log.error({ unreadable }, 'journal lines of a stopped process could not be read (a line cut by a crash mid-write, or damage)')
    }
    noteRecovered(await ledger.recover())
    // Shared by several gateways: one that dies is cleaned up after by the others, while they run.
    const sweeps = ledger.recoverEveryMs === undefined ? undefined : setInterval(() => {
      ledger.recover().then(noteRecovered, (err: unknown) => log.warn({ err }, 'metering could not renew its lease or release the holds of stopped gateways'))
    }, ledger.recoverEveryMs)
    sweeps?.unref()
    /** Requests that passed metering on their way to the model, with their hold, and so must be settled. */
    const metered = new WeakMap<RequestContext, Hold | undefined>()

    /** An answer as the core priced it; its cost in cents carries whole micros. */
    function answered(result: CompletionResult): Metered {
      return {
        provider: result.provider, model: result.model, promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens,
        cachedInputTokens: result.cachedInputTokens, cacheWriteTokens: result.cacheWriteTokens,
        costMicros: Math.round(result.usage.costCents * 1e4), cacheHit: result.cacheHit,
      }
    }

    /** What was generated without a complete answer, priced at the serving model's plain rates. */
    function generated(ctx: RequestContext, promptTokens: number, completionTokens: number): Metered {
      const { provider, model }: ServedBy = ctx.servedBy ?? ctx.state.router!
      const costMicros = toMicros(plainCost(modelCatalog().info(model), promptTokens, completionTokens))
      return { provider, model, promptTokens, completionTokens, costMicros, cacheHit: false }
    }

    // One literal with the optional fields added after: spreading them in made a slow
    // dictionary-mode object, which the journal's JSON and the store's encoding then paid for again.
    function entryOf(ctx: RequestContext, figures: Metered, outcome: string): LedgerEntry {
      const auth = ctx.state.auth!
      const now = clock.now()
      const charge = guard.charge(figures.costMicros, metered.get(ctx))
      const entry: Mutable<LedgerEntry> = {
        id: ctx.id, projectId: auth.project.id, keyId: auth.keyId, at: new Date(now).toISOString(),
        month: monthKey(now), day: dayKey(now), provider: figures.provider, model: figures.model,
        promptTokens: figures.promptTokens, completionTokens: figures.completionTokens,
        costMicros: charge.costMicros, cacheHit: figures.cacheHit, outcome,
      }
      const { user, tags } = ctx.ai!
      if (user !== undefined) entry.user = user
      if (tags !== undefined) entry.tags = tags
      if (figures.cachedInputTokens !== undefined) entry.cachedInputTokens = figures.cachedInputTokens
      if (figures.cacheWriteTokens !== undefined) entry.cacheWriteTokens = figures.cacheWriteTokens
      if (charge.overageMicros !== undefined) entry.overageMicros = charge.overageMicros
      // A name the config lets through unpriced is charged nothing, and says so.
      if (!figures.cacheHit && !modelCatalog().info(figures.model).priced) entry.unpriced = 'no_price'
      return entry
    }

    function report(ctx: RequestContext, entry: LedgerEntry, usedMicros: number): void {
      ctx.charge = {
        chargedDollars: entry.costMicros / 1e6,
        remainingDollars: Math.max(0, toMicros(ctx.state.auth!.project.budgetDollars) - usedMicros) / 1e6,
      }
    }

    /**
     * Charges the request. Synchronous when the settlement was journaled (LMDB, the usual case):
     * the answer need not wait for the ledger's commit, which follows in the background. A promise
     * when it was not (PostgreSQL, or a journal that could not be written), so the answer waits
     * for the commit as the only durable record.
     */
    function settle(ctx: RequestContext, entry: LedgerEntry, checkpointed: boolean): Promise<void> | undefined {
      const settled = guard.settle(entry, ctx.state.auth!.project, metered.get(ctx), checkpointed)
      const charged = (row: BudgetRow) => {
        countCharge(ctx, entry)
        report(ctx, entry, row.usedMicros)
      }
      if (settled instanceof Promise) return settled.then(charged)
      charged(settled)
      return undefined
    }

    function countCharge(ctx: RequestContext, entry: LedgerEntry): void {
      if (entry.cacheHit) return
      if (entry.unpriced !== undefined) unpricedServed.inc({ provider: entry.provider })
      // Names let through unpriced are the client's own: one bounded label stands for them all.
      const counters = countersOf(entry.provider, modelCatalog().metricName(entry.model))
      counters.input.inc(entry.promptTokens)
      counters.output.inc(entry.completionTokens)
      counters.dollars.inc(entry.costMicros / 1e6)
      // ctx.log makes the request's logger, which a request without an overage never needs.
      if (entry.overageMicros !== undefined) guard.noteOverage(entry, ctx.log)
    }

    const streams = streamCheckpoints({
      intervalMs: config.checkpointIntervalMs,
      count: countStreamed,
      checkpointOf: (ctx, completionTokens) => ({
        entry: entryOf(ctx, generated(ctx, ctx.state.router!.promptTokens, completionTokens), 'recovered'),
        owner: SELF_OWNER,
        limitMicros: toMicros(ctx.state.auth!.project.budgetDollars),
      }),
      start: (progress) => ledger.startStreams(progress),
      write: (progress) => ledger.checkpoint(progress),
      track,
    })

    /**
     * A replayed answer (idempotency) settles its original's entry, with the original's id and
     * figures: a no-op when the original was charged, its one charge when a crash came between
     * the idempotency commit and the ledger's. The replay itself is charged nothing and reports
     * so (the spec's x-credits-charged is what this request cost), with the budget left now.
     */
    async function settleReplay(ctx: RequestContext, replay: IdempotencyState, result: CompletionResult): Promise<void> {
      const project = ctx.state.auth!.project
      if (await ledger.entry(replay.replayOf) === undefined) {
        const entry: LedgerEntry = {
          id: replay.replayOf, projectId: project.id, keyId: replay.keyId, at: new Date(replay.answeredAt).toISOString(),
          month: monthKey(replay.answeredAt), day: dayKey(replay.answeredAt), provider: result.provider, model: result.model,
          promptTokens: result.usage.promptTokens, completionTokens: result.usage.completionTokens,
          costMicros: replay.chargedMicros, cacheHit: result.cacheHit, outcome: result.cacheHit ? 'cache_hit' : 'ok',
          // A replay's request hashes the same as its original's, so it names the same user and tags.
          ...(ctx.ai?.user === undefined ? {} : { user: ctx.ai.user }),
          ...(ctx.ai?.tags === undefined ? {} : { tags: ctx.ai.tags }),
        }
        const settled = ledger.settle(entry, toMicros(project.budgetDollars), { hold: undefined, checkpointed: true })
        track(settled.committed)
        if (settled.row === undefined) await settled.committed
      }
      const used = (await ledger.budget(project.id, monthKey(clock.now()))).usedMicros
      ctx.charge = { chargedDollars: 0, remainingDollars: Math.max(0, toMicros(project.budgetDollars) - used) / 1e6 }
    }

    /** The request passed metering on its way to the model, holding `hold`. */
    function admit(ctx: RequestContext, hold: Hold | undefined): undefined {
      metered.set(ctx, hold)
      // Recorded as this turn ends: a crash from then on charges at least the prompt the provider is sent.
      if (isStreamed(ctx)) streams.follow(ctx)
      return undefined
    }

    const admitHeld = (ctx: RequestContext, held: Hold | BudgetExceededError): Reply | undefined =>
      held instanceof BudgetExceededError ? Reply.error(held) : admit(ctx, held)

    return {
      provides: { usageMeter: createUsageMeter({ guard, clock, metrics, enforceBudgets: config.enforceBudgets }) },
      routes: [usageRoute(ledger, clock, keyLabel)],
      projectRoutes: [memberUsageRoute(ledger, clock, keyLabel)],
      // Synchronous where holds are kept in memory: no promise on the request path.
      onRequest(ctx) {
        const auth = ctx.state.auth
        const decision = ctx.state.router
        if (auth === undefined || decision === undefined) return
        if (!config.enforceBudgets) return admit(ctx, undefined)
        // The most any model that may serve this can charge: the prompt's bound and every token the
        // answer may hold. A model without a price holds the configured ceiling instead.
        let worst = 0
        for (const model of decision.models) {
          const info = modelCatalog().info(model)
          worst = Math.max(worst, info.priced ? plainCost(info, decision.promptTokensBound, decision.maxTokens) : config.unpricedHoldDollars)
        }
        const held = guard.hold(ctx.id, auth.project, Math.ceil(worst * 1e6), auth)
        return held instanceof Promise ? held.then((decided) => admitHeld(ctx, decided)) : admitHeld(ctx, held)
      },
      // A withheld answer is settled with the request's outcome once it ends (onComplete).
      onAnswered(ctx, result, withheld) {
        if (withheld !== undefined) return
        const replay = ctx.state.idempotency
        if (replay !== undefined && ctx.state.auth !== undefined) return settleReplay(ctx, replay, result)
        if (ctx.state.auth === undefined || ctx.state.router === undefined) return
        // Hits are recorded too (at no charge), before the answer completes like misses.
        return settle(ctx, entryOf(ctx, answered(result), result.cacheHit ? 'cache_hit' : 'ok'), streams.end(ctx))
      },
      onComplete(ctx: CompletedContext) {
        if (!metered.has(ctx) || ctx.charge?.chargedDollars !== undefined) {
          streams.end(ctx)
          if (ctx.charge !== undefined) reachedCrashPoint('answer-charged')
          return
        }
        // No settled answer: an error, a stream cut short, or a complete answer that was withheld
        // (the Governor's strict mode). What the model generated is still paid for.
        const checkpointed = streams.end(ctx)
        const settleWith = (usage: Metered) => {
          const settling = settle(ctx, entryOf(ctx, usage, ctx.outcome.reason), checkpointed)
          if (settling !== undefined) track(settling)
        }
        if (ctx.result?.cacheHit === false) {
          settleWith(answered(ctx.result))
          return
        }
        const generatedOf = ([completionTokens]: readonly number[]) => generated(ctx, completionTokens! > 0 ? ctx.state.router!.promptTokens : 0, completionTokens!)
        // A long text is counted in the pool, after the response: the settlement is tracked so
        // that shutdown waits for it, and a crash meanwhile settles the stream to its last checkpoint.
        const counted = countStreamed([ctx.streamedText])
        if (counted instanceof Promise) track(counted.then((tokens) => settleWith(generatedOf(tokens))))
        else settleWith(generatedOf(counted))
      },
      async close() {
        streams.close()
        clearInterval(sweeps)
        await ledger.close()
      },
    }
  },
} satisfies GatewayPlugin<typeof meteringSchema>
