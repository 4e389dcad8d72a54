// The response cache: identical requests of a project get the stored answer at no charge (spec:
// chat rule 1). Concurrent identical misses in one process make one model call; the answer is
// stored once the model has finished it, unless the Governor found what must not be replayed.
// With REDIS_URL the answers live in Redis, shared by every gateway on it, and concurrent
// identical misses on different gateways make one model call too (store/redis-flights.ts). A cache
// store that cannot answer costs a model call, never the request: a failed lookup is a miss, a
// failed write is dropped, and both are counted.
import { SPEC_TEMPERATURE } from '../../proxy/pipeline/ai-request.ts'
import type { CompletionResult } from '../../proxy/pipeline/completion.ts'
import { aiRequestOf, type RequestContext } from '../../proxy/pipeline/context.ts'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import type { Project } from '../../proxy/pipeline/project.ts'
import { Reply } from '../../proxy/http/reply.ts'
import { hashCacheKey } from '../../workers/hash-cache-key.ts'
import { openAnswerStore, openSharedFlights, type StoredAnswer } from './store/index.ts'
import { cachePolicyOf, USE_CACHE, type CachePolicy } from './logic/cache-control.ts'
import { encodeCacheKey } from './logic/cache-key.ts'
import { InFlight, untilAborted } from './in-flight.ts'
import { createCacheMetrics } from './metrics.ts'
import { isCacheable } from './logic/sampling-rule.ts'
import { cacheSchema } from './schema.ts'
import { cacheLogFields } from './state.ts'

type Answer = Pick<CompletionResult, 'text' | 'provider' | 'model' | 'usage' | 'toolCalls' | 'finishReason' | 'embeddings'>

/** Whether the text's UTF-8 bytes fit `bytes`: a UTF-16 unit is at most 3 of them, so most texts need no count. */
function fitsInline(text: string, bytes: number): boolean {
  return text.length * 3 <= bytes || Buffer.byteLength(text) <= bytes
}

/** A cached answer as the client sees it: a hit costs nothing. */
function hitOf(answer: Answer): CompletionResult {
  const { usage } = answer
  const hit: CompletionResult = {
    text: answer.text,
    provider: answer.provider,
    model: answer.model,
    cacheHit: true,
    usage: { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, totalTokens: usage.totalTokens, costCents: 0 },
  }
  if (answer.toolCalls !== undefined) hit.toolCalls = answer.toolCalls
  if (answer.finishReason !== undefined) hit.finishReason = answer.finishReason
  if (answer.embeddings !== undefined) hit.embeddings = answer.embeddings
  return hit
}

export default {
  name: 'cache',
  order: 400,
  gates: ['ai'],
  reads: ['auth', 'router', 'governor'],
  schema: cacheSchema,
  // A broken cache costs a model call, not the request.
  failOpen: true,
  setup(config, { store, redis, pool, metrics, clock, track }) {
    if (!config.enabled) return {}
    const answers = openAnswerStore({ store, redis }, config)
    const flights = new InFlight<Answer>()
    const across = openSharedFlights({ store, redis }, answers, config)
    // The requests holding their key's lock across gateways, to give it up when they complete.
    const lockHolders = new WeakSet<RequestContext>()
    const counters = createCacheMetrics(metrics, answers.count)

    function lookup(ctx: RequestContext, key: string, policy: CachePolicy, project: Project): Reply | undefined | Promise<Reply | undefined> {
      if (!policy.serve) return proceed(ctx, key, policy)
      const stored = answers.get(key)
      if (!(stored instanceof Promise)) return serve(ctx, key, policy, project, stored)
      return stored.then(
        (found) => serve(ctx, key, policy, project, found),
        () => {
          counters.failed.lookup.inc()
          return proceed(ctx, key, policy, false)
        },
      )
    }

    function serve(
      ctx: RequestContext,
      key: string,
      policy: CachePolicy,
      project: Project,
      stored: StoredAnswer | undefined,
    ): Reply | undefined | Promise<Reply | undefined> {
      if (stored !== undefined) {
        if (clock.now() - stored.storedAt < project.cacheTtlSeconds * 1000) {
          ctx.state.cache = { key, hit: true, coalesced: false }
          counters.hit.inc()
          return Reply.completion(hitOf(stored))
        }
        track(written(answers.removeIfStoredAt(key, stored.storedAt)))
      }
      return proceed(ctx, key, policy)
    }

    /** A failed write to Redis is dropped and counted; a local store's failure is logged as any background work's. */
    function written(work: Promise<void>): Promise<unknown> {
      return answers.shared ? work.catch(() => counters.failed.store.inc()) : work
    }

    /** Not served from the store: follow a request in flight for the same key, or lead (this process's flight, and the gateways' if Redis answers). */
    function proceed(ctx: RequestContext, key: string, policy: CachePolicy, storeUp = true): Reply | undefined | Promise<Reply | undefined> {
      const inFlight = flights.answerFor(key)
      if (inFlight !== undefined && policy.serve) return follow(ctx, key, inFlight)
      if (inFlight === undefined) flights.lead(key, ctx)
      if (across !== undefined && storeUp && policy.serve && inFlight === undefined) return leadAcross(ctx, key, across)
      return miss(ctx, key, policy)
    }

    function miss(ctx: RequestContext, key: string, policy: CachePolicy): undefined {
      ctx.state.cache = { key, hit: false, coalesced: false }
      counters[policy.serve ? 'miss' : 'bypass'].inc()
      return undefined
    }

    async function leadAcross(ctx: RequestContext, key: string, shared: NonNullable<typeof across>): Promise<Reply | undefined> {
      if (await shared.tryLead(key)) {
        lockHolders.add(ctx)
        return miss(ctx, key, USE_CACHE)
      }
      const answer = await shared.awaitAnswer(key, ctx.signal)
      if (answer === undefined) return miss(ctx, key, USE_CACHE)
      // This process's followers of the key get it too.
      flights.answer(key, ctx, answer)
      ctx.state.cache = { key, hit: true, coalesced: true }
      counters.coalesced.inc()
      return Reply.completion(hitOf(answer))
    }

    async function follow(ctx: RequestContext, key: string, inFlight: Promise<Answer | undefined>): Promise<Reply | undefined> {
      const answer = await untilAborted(inFlight, ctx.signal)
      if (answer === undefined) {
        // The leader ended without an answer (or this client left): an ordinary miss.
        ctx.state.cache = { key, hit: false, coalesced: false }
        counters.miss.inc()
        return undefined
      }
      ctx.state.cache = { key, hit: true, coalesced: true }
      counters.coalesced.inc()
      return Reply.completion(hitOf(answer))
    }

    return {
      logFields: cacheLogFields,
      onRequest(ctx) {
        const auth = ctx.state.auth
        const decision = ctx.state.router
        if (auth === undefined || decision === undefined) return
        const project = auth.project
        const policy = cachePolicyOf(ctx.headers['cache-control'])
        const ai = aiRequestOf(ctx)
        const isDialect = ctx.route.dialect !== undefined
        if (!project.cacheEnabled || !policy.store || !isCacheable(isDialect, ai, project.cacheSampled === true)) {
          counters.bypass.inc()
          return
        }
        const canonical = encodeCacheKey({
          projectId: project.id,
          provider: decision.provider,
          model: decision.model,
          messages: decision.messages,
          // The spec's endpoints send their default when the request gives none: the same request.
          temperature: ai.temperature ?? (isDialect ? null : SPEC_TEMPERATURE),
          maxTokens: ai.maxTokens ?? null,
          mode: ai.mode,
          governorVersion: ai.governorMetadata === undefined ? null : project.governor.version,
          options: ai,
          embedding: ai.embedding,
        })
        if (fitsInline(canonical, config.poolThresholdBytes)) return lookup(ctx, hashCacheKey(canonical), policy, project)
        return pool.run('hashCacheKey', canonical, ctx.signal).then((key) => lookup(ctx, key, policy, project))
      },
      // The core calls onAnswered only for a complete answer: a failed, cut or stopped stream
      // never reaches it. One withheld (by the Governor) is not stored, and a governed answer is
      // stored only when the Governor found it storable: no finding of HIGH or CRITICAL severity
      // left in it as sent. One that is not goes to no waiting follower either: they ask the model
      // themselves.
      onAnswered(ctx, result, withheld) {
        const slot = ctx.state.cache
        if (slot === undefined || result.cacheHit || withheld !== undefined) return
        const governed = ctx.state.governor
        if (governed !== undefined && governed.output?.storable !== true) return
        flights.answer(slot.key, ctx, result)
        const { text, provider, model, usage, toolCalls, finishReason, embeddings } = result
        const stored: StoredAnswer = { text, provider, model, usage, storedAt: clock.now() }
        if (toolCalls !== undefined) stored.toolCalls = toolCalls
        if (finishReason !== undefined) stored.finishReason = finishReason
        if (embeddings !== undefined) stored.embeddings = embeddings
        const ttlMs = Math.max(1, ctx.state.auth!.project.cacheTtlSeconds * 1000)
        if (!answers.shared) {
          track(answers.put(slot.key, stored, ttlMs))
          return
        }
        return written(answers.put(slot.key, stored, ttlMs)).then(() => undefined)
      },
      onComplete(ctx) {
        const slot = ctx.state.cache
        if (slot === undefined) return
        flights.end(slot.key, ctx)
        if (across !== undefined && lockHolders.delete(ctx)) track(across.release(slot.key).catch(() => counters.failed.store.inc()))
      },
    }
  },
} satisfies GatewayPlugin<typeof cacheSchema>
