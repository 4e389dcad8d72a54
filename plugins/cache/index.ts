// The response cache: identical requests of a project get the stored answer at no charge (spec:
// chat rule 1). Concurrent identical misses in one process make one model call; the answer is
// stored once the model has finished it, unless the Governor found what must not be replayed.
import type { CompletionResult } from '../../proxy/completion.ts'
import { aiRequestOf, type RequestContext } from '../../proxy/context.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import type { Project } from '../../proxy/project.ts'
import { Reply } from '../../proxy/reply.ts'
import { hashCacheKey } from '../../workers/hash-cache-key.ts'
import { createAnswerStore, type StoredAnswer } from './answer-store.ts'
import { cachePolicyOf, type CachePolicy } from './cache-control.ts'
import { encodeCacheKey } from './cache-key.ts'
import { InFlight, untilAborted } from './in-flight.ts'
import { createCacheMetrics } from './metrics.ts'
import { cacheSchema } from './schema.ts'
import { cacheLogFields } from './state.ts'

type Answer = Pick<CompletionResult, 'text' | 'provider' | 'model' | 'usage' | 'toolCalls' | 'finishReason'>

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
  return hit
}

export default {
  name: 'cache',
  order: 400,
  gates: ['ai'],
  schema: cacheSchema,
  // A broken cache costs a model call, not the request.
  failOpen: true,
  setup(config, { store, pool, metrics, clock, track }) {
    if (!config.enabled) return {}
    const answers = createAnswerStore(store, config.maxEntries)
    const flights = new InFlight<Answer>()
    const counters = createCacheMetrics(metrics, answers.count)

    function lookup(ctx: RequestContext, key: string, policy: CachePolicy, project: Project): Reply | undefined | Promise<Reply | undefined> {
      if (policy.serve) {
        const stored = answers.get(key)
        if (stored !== undefined) {
          if (clock.now() - stored.storedAt < project.cacheTtlSeconds * 1000) {
            ctx.state.cache = { key, hit: true, coalesced: false }
            counters.hit.inc()
            return Reply.completion(hitOf(stored))
          }
          track(answers.removeIfStoredAt(key, stored.storedAt))
        }
      }
      const inFlight = flights.answerFor(key)
      if (inFlight !== undefined && policy.serve) return follow(ctx, key, inFlight)
      if (inFlight === undefined) flights.lead(key, ctx)
      ctx.state.cache = { key, hit: false, coalesced: false }
      counters[policy.serve ? 'miss' : 'bypass'].inc()
      return undefined
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
        if (!project.cacheEnabled || !policy.store) {
          counters.bypass.inc()
          return
        }
        const ai = aiRequestOf(ctx)
        const canonical = encodeCacheKey({
          projectId: project.id,
          provider: decision.provider,
          model: decision.model,
          messages: decision.messages,
          temperature: ai.temperature,
          maxTokens: ai.maxTokens,
          mode: ai.mode,
          governorVersion: ai.governorMetadata === undefined ? null : project.governor.version,
          options: ai,
        })
        if (Buffer.byteLength(canonical) <= config.poolThresholdBytes) return lookup(ctx, hashCacheKey(canonical), policy, project)
        return pool.run('hashCacheKey', canonical, ctx.signal).then((key) => lookup(ctx, key, policy, project))
      },
      // The core calls onResult only for a complete, successful answer: a failed, cut or stopped
      // stream never reaches it, nor does an answer the Governor withheld (its onResult runs
      // first and ends the chain). A governed answer is stored only when the Governor found it
      // storable: no finding of HIGH or CRITICAL severity left in it as sent. One that is not goes
      // to no waiting follower either: they ask the model themselves.
      onResult(ctx, result) {
        const slot = ctx.state.cache
        if (slot === undefined || result.cacheHit) return
        const governed = ctx.state.governor
        if (governed !== undefined && governed.output?.storable !== true) return
        flights.answer(slot.key, ctx, result)
        const { text, provider, model, usage, toolCalls, finishReason } = result
        const stored: StoredAnswer = { text, provider, model, usage, storedAt: clock.now() }
        if (toolCalls !== undefined) stored.toolCalls = toolCalls
        if (finishReason !== undefined) stored.finishReason = finishReason
        track(answers.put(slot.key, stored))
      },
      onComplete(ctx) {
        const slot = ctx.state.cache
        if (slot !== undefined) flights.end(slot.key, ctx)
      },
    }
  },
} satisfies GatewayPlugin<typeof cacheSchema>
