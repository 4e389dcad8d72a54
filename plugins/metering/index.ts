// Metering and budgets: hold the worst-case cost before the model call, settle to the real cost
// once the answer is known (committed before the response completes, never above the hold), and
// meter a stream cut short for what it generated, through a crash too: a running stream's
// progress is checkpointed, and a restart settles what a dead process left to its last checkpoint.
// Streamed text is counted off the event loop when long (count-streamed-text.ts).
// An answer is charged what it cost as the core priced it (a cache hit's cost is nothing);
// what has no answer (an error, a cut stream) is priced here from the model table.
import { Counter } from 'prom-client'
import { modelCatalog } from '../../proxy/catalog.ts'
import type { CompletionResult, ServedBy } from '../../proxy/completion.ts'
import { isStreamed, type CompletedContext, type RequestContext } from '../../proxy/context.ts'
import type { IdempotencyState } from '../idempotency/state.ts'
import { BudgetExceededError } from '../../proxy/errors.ts'
import type { ModelPrices } from '../../proxy/models.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import { toMicros, type BudgetRow, type LedgerEntry, type StreamCheckpoint } from './ledger.ts'
import { dayKey, monthKey } from './periods.ts'
import type { Hold } from './budget-holds.ts'
import { createBudgetGuard } from './budget-guard.ts'
import { lmdbMeteringStore } from './lmdb-store.ts'
import type { MeteringStore, Recovered } from './metering-store.ts'
import { postgresMeteringStore } from './postgres-store.ts'
import { SELF_OWNER } from './process-owner.ts'
import { meteringSchema } from './schema.ts'
import { countStreamedTexts, type PoolRefusal } from './count-streamed-text.ts'
import { createUsageMeter } from './usage-service.ts'
import { memberUsageRoute, usageRoute } from './usage-route.ts'

/** What one request is recorded with: who served it, its tokens and what it cost at list price. */
interface Metered extends ServedBy {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedInputTokens?: number | undefined
  readonly cacheWriteTokens?: number | undefined
  readonly costMicros: number
  readonly cacheHit: boolean
}

/** Input and output at the model's plain rates: what a hold reserves and what a partial answer costs. */
function plainCost(model: ModelPrices, promptTokens: number, completionTokens: number): number {
  return (promptTokens * model.inputPerMillion + completionTokens * model.outputPerMillion) / 1_000_000
}

/** A running stream's progress: how much of its text has been counted so far. */
interface StreamProgress {
  countedChars: number
  completionTokens: number
  checkpointed: boolean
}

export default {
  name: 'metering',
  order: 450,
  gates: ['ai'],
  schema: meteringSchema,
  async setup(config, { store, database, sharedEvents, clock, log, track, metrics, events, pool }) {
    const ledger: MeteringStore = database === undefined
      ? lmdbMeteringStore(store, { shared: config.shared, track, events })
      : await postgresMeteringStore(database, { clock, owner: SELF_OWNER, leaseMs: config.holdLeaseMs, events: sharedEvents })
    const tokensMetered = new Counter({
      name: 'tollgate_tokens_total', help: 'Tokens metered, by provider, model and direction (cache hits excluded).',
      labelNames: ['provider', 'model', 'direction'], registers: [metrics],
    })
    const dollarsCharged = new Counter({
      name: 'tollgate_cost_dollars_total', help: 'Dollars charged at list price, by provider and model.',
      labelNames: ['provider', 'model'], registers: [metrics],
    })
    const unpricedServed = new Counter({
      name: 'tollgate_unpriced_requests_total', help: 'Model calls served under a name the model table does not list (unpricedModels): charged nothing, recorded as unpriced.',
      labelNames: ['provider'], registers: [metrics],
    })
    const guard = createBudgetGuard({ ledger, clock, metrics, track })
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
    const streams = new Map<RequestContext, StreamProgress>()

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

    function entryOf(ctx: RequestContext, figures: Metered, outcome: string): LedgerEntry {
      const auth = ctx.state.auth!
      const now = clock.now()
      return {
        id: ctx.id, projectId: auth.project.id, keyId: auth.keyId, at: new Date(now).toISOString(),
        month: monthKey(now), day: dayKey(now), provider: figures.provider, model: figures.model,
        promptTokens: figures.promptTokens, completionTokens: figures.completionTokens,
        ...(figures.cachedInputTokens !== undefined && { cachedInputTokens: figures.cachedInputTokens }),
        ...(figures.cacheWriteTokens !== undefined && { cacheWriteTokens: figures.cacheWriteTokens }),
        ...guard.charge(figures.costMicros, metered.get(ctx)), cacheHit: figures.cacheHit, outcome,
        // A name the config lets through unpriced is charged nothing, and says so.
        ...(!figures.cacheHit && !modelCatalog().info(figures.model).priced && { unpriced: 'no_price' }),
      }
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
      const labels = { provider: entry.provider, model: modelCatalog().metricName(entry.model) }
      tokensMetered.inc({ ...labels, direction: 'input' }, entry.promptTokens)
      tokensMetered.inc({ ...labels, direction: 'output' }, entry.completionTokens)
      dollarsCharged.inc(labels, entry.costMicros / 1e6)
      guard.noteOverage(entry, ctx.log)
    }

    /** Ends a stream's progress; true when it was checkpointed, so that its settlement removes the checkpoint. */
    function endStream(ctx: RequestContext): boolean {
      const progress = streams.get(ctx)
      streams.delete(ctx)
      return progress?.checkpointed === true
    }

    /**
     * Counts what each running stream sent since the last checkpoint and records it, all streams
     * in one transaction. One pass at a time: the next starts once this one's counts are in, so no
     * text is counted twice. A stream that ended while its text was being counted is left out: its
     * settlement counts its whole text, and removes only a checkpoint it knew of.
     */
    function checkpointStreams(): Promise<void> | undefined {
      const pending: Array<{ ctx: RequestContext; stream: StreamProgress; upTo: number }> = []
      for (const [ctx, stream] of streams) {
        if (ctx.streamedText.length > stream.countedChars) pending.push({ ctx, stream, upTo: ctx.streamedText.length })
      }
      if (pending.length === 0) return undefined
      const record = (tokens: readonly number[]) => {
        const progress: StreamCheckpoint[] = []
        pending.forEach(({ ctx, stream, upTo }, i) => {
          if (streams.get(ctx) !== stream) return
          stream.completionTokens += tokens[i]!
          stream.countedChars = upTo
          stream.checkpointed = true
          const entry = entryOf(ctx, generated(ctx, ctx.state.router!.promptTokens, stream.completionTokens), 'recovered')
          progress.push({ entry, owner: SELF_OWNER, limitMicros: toMicros(ctx.state.auth!.project.budgetDollars) })
        })
        if (progress.length > 0) track(ledger.checkpoint(progress))
      }
      const counted = countStreamed(pending.map(({ ctx, stream, upTo }) => ctx.streamedText.slice(stream.countedChars, upTo)))
      if (!(counted instanceof Promise)) {
        record(counted)
        return undefined
      }
      return counted.then(record)
    }
    let checkpointing: Promise<void> | undefined
    const checkpoints = setInterval(() => {
      if (checkpointing !== undefined) return
      const pass = checkpointStreams()
      if (pass === undefined) return
      checkpointing = pass.finally(() => {
        checkpointing = undefined
      })
      track(checkpointing)
    }, config.checkpointIntervalMs)
    checkpoints.unref()

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
        }
        const settled = ledger.settle(entry, toMicros(project.budgetDollars), { held: true, checkpointed: true })
        track(settled.committed)
        if (settled.row === undefined) await settled.committed
      }
      const used = (await ledger.budget(project.id, monthKey(clock.now()))).usedMicros
      ctx.charge = { chargedDollars: 0, remainingDollars: Math.max(0, toMicros(project.budgetDollars) - used) / 1e6 }
    }

    return {
      provides: { usageMeter: createUsageMeter({ guard, clock, metrics, enforceBudgets: config.enforceBudgets }) },
      routes: [usageRoute(ledger, clock)],
      projectRoutes: [memberUsageRoute(ledger, clock)],
      async onRequest(ctx) {
        const auth = ctx.state.auth
        const decision = ctx.state.router
        if (auth === undefined || decision === undefined) return
        if (isStreamed(ctx)) streams.set(ctx, { countedChars: 0, completionTokens: 0, checkpointed: false })
        if (!config.enforceBudgets) {
          metered.set(ctx, undefined)
          return
        }
        // The most any model that may serve this can charge: the prompt's bound and every token the
        // answer may hold. A model without a price holds the configured ceiling instead.
        let worst = 0
        for (const model of decision.models) {
          const info = modelCatalog().info(model)
          worst = Math.max(worst, info.priced ? plainCost(info, decision.promptTokensBound, decision.maxTokens) : config.unpricedHoldDollars)
        }
        const hold = await guard.hold(ctx.id, auth.project, Math.ceil(worst * 1e6))
        if (hold instanceof BudgetExceededError) {
          streams.delete(ctx)
          return Reply.error(hold)
        }
        metered.set(ctx, hold)
      },
      onResult(ctx, result) {
        const replay = ctx.state.idempotency
        if (replay !== undefined && ctx.state.auth !== undefined) return settleReplay(ctx, replay, result)
        if (ctx.state.auth === undefined || ctx.state.router === undefined) return
        // Hits are recorded too (at no charge), before the answer completes like misses.
        return settle(ctx, entryOf(ctx, answered(result), result.cacheHit ? 'cache_hit' : 'ok'), endStream(ctx))
      },
      onComplete(ctx: CompletedContext) {
        if (!metered.has(ctx) || ctx.charge?.chargedDollars !== undefined) {
          streams.delete(ctx)
          if (config.testCrashAfter === 'answer' && ctx.charge !== undefined) process.kill(process.pid, 'SIGKILL')
          return
        }
        // No settled answer: an error, a stream cut short, or a complete answer that an earlier
        // hook withheld (the Governor's strict mode). What the model generated is still paid for.
        const checkpointed = endStream(ctx)
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
        clearInterval(checkpoints)
        clearInterval(sweeps)
        await ledger.close()
      },
    }
  },
} satisfies GatewayPlugin<typeof meteringSchema>
