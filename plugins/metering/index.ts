// Metering and budgets: hold the worst-case cost before the model call, settle to the real cost
// once the answer is known (journaled before the response completes, never above the hold), and
// meter a stream cut short for what it generated, through a crash too: a running stream's
// progress is checkpointed from its start (stream-checkpoints.ts), and a restart settles what a
// dead process left to its last checkpoint.
// Streamed text is counted off the event loop when long (count-streamed-text.ts).
// An answer is charged what it cost as the core priced it (a cache hit's cost is nothing);
// what has no answer (an error, a cut stream) is priced here from the model table.
import { isStreamed, type CompletedContext, type RequestContext } from '../../proxy/pipeline/context.ts'
import { reachedCrashPoint } from '../../proxy/kit/crash-points.ts'
import { BudgetExceededError } from './errors.ts'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import { Reply } from '../../proxy/http/reply.ts'
import { SELF_OWNER } from '../../proxy/stores/process-owner.ts'
import { microsOfDollars } from '../../proxy/pipeline/price.ts'
import { createBudgetGuard } from './budget-guard.ts'
import { countStreamedTexts, type PoolRefusal } from './count-streamed-text.ts'
import { answered, generated, worstCaseMicros, type Metered } from './logic/metered.ts'
import { chargeMetrics, poolFallbackCounter } from './metrics.ts'
import { keepRecovering } from './recovery.ts'
import { requestSettlement } from './request-settlement.ts'
import { memberUsageRoute, usageRoute, type KeyLabel } from './routes/usage.ts'
import { meteringSchema } from './schema.ts'
import { openMeteringStore } from './store/index.ts'
import type { Hold } from './store/records.ts'
import { streamCheckpoints } from './stream-checkpoints.ts'
import { createUsageMeter } from './usage-service.ts'

export default {
  name: 'metering',
  order: 450,
  gates: ['ai'],
  reads: ['auth', 'router', 'idempotency'],
  schema: meteringSchema,
  async setup(config, { store, database, sharedEvents, clock, log, track, metrics, events, pool, services, catalog }) {
    const ledger = await openMeteringStore({ store, database, sharedEvents, clock, track, events }, config)
    const charges = chargeMetrics(metrics)
    const guard = createBudgetGuard({ ledger, clock, metrics, track })
    const keyLabel: KeyLabel = (keyId) => services.registry?.getKey(keyId)
    const countedInline = poolFallbackCounter(metrics)
    /** Streamed texts' token counts; a pool that refuses them never loses usage, they are counted inline. */
    const countStreamed = (texts: readonly string[]) =>
      countStreamedTexts(
        texts,
        pool,
        (reason: PoolRefusal, err: unknown) => {
          countedInline(reason)
          if (reason === 'overloaded') log.debug('worker pool full: streamed text counted on the event loop')
          else log.warn({ err, reason }, 'worker pool failed or timed out a count of streamed text: counted on the event loop')
        },
        config.countTimeoutMs,
      )
    const stopRecovering = await keepRecovering(ledger, log)
    /** Requests that passed metering on their way to the model, with their hold, and so must be settled. */
    const metered = new WeakMap<RequestContext, Hold | undefined>()
    const { entryOf, settle, settleReplay } = requestSettlement({ guard, ledger, clock, catalog, metrics: charges, track, holdOf: (ctx) => metered.get(ctx) })

    /** What was generated without a complete answer, priced at the serving model's plain rates. */
    const generatedBy = (ctx: RequestContext, promptTokens: number, completionTokens: number): Metered => {
      const servedBy = ctx.servedBy ?? ctx.state.router!
      return generated(servedBy, catalog.info(servedBy.model), promptTokens, completionTokens)
    }

    const streams = streamCheckpoints({
      intervalMs: config.checkpointIntervalMs,
      count: countStreamed,
      checkpointOf: (ctx, completionTokens) => ({
        entry: entryOf(ctx, generatedBy(ctx, ctx.state.router!.promptTokens, completionTokens), 'recovered'),
        owner: SELF_OWNER,
        limitMicros: microsOfDollars(ctx.state.auth!.project.budgetDollars),
      }),
      start: (progress) => ledger.startStreams(progress),
      write: (progress) => ledger.checkpoint(progress),
      track,
    })

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
        const worst = worstCaseMicros(
          decision.models,
          (model) => catalog.info(model),
          decision.promptTokensBound,
          decision.maxTokens,
          config.unpricedHoldDollars,
        )
        const held = guard.hold(ctx.id, auth.project, worst, auth)
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
        const generatedOf = ([completionTokens]: readonly number[]) =>
          generatedBy(ctx, completionTokens! > 0 ? ctx.state.router!.promptTokens : 0, completionTokens!)
        // A long text is counted in the pool, after the response: the settlement is tracked so
        // that shutdown waits for it, and a crash meanwhile settles the stream to its last checkpoint.
        const counted = countStreamed([ctx.streamedText])
        if (counted instanceof Promise) track(counted.then((tokens) => settleWith(generatedOf(tokens))))
        else settleWith(generatedOf(counted))
      },
      async close() {
        streams.close()
        stopRecovering()
        await ledger.close()
      },
    }
  },
} satisfies GatewayPlugin<typeof meteringSchema>
