// The cache plugin set up with real dependencies (a fresh LMDB store per test, or an emptied
// Redis when given its URL, a prom-client registry, a manual clock), and requests that walk its
// hooks the way the core does.
import { pino } from 'pino'
import { Registry } from 'prom-client'
import type { Test } from 'tap'
import type { z } from 'zod'
import type { completeRequestSchema } from '../../../proxy/pipeline/ai-request.ts'
import type { CompletionResult } from '../../../proxy/pipeline/completion.ts'
import type { CompletedContext, Outcome, RequestContext, RouteInfo } from '../../../proxy/pipeline/context.ts'
import type { PluginHooks } from '../../../proxy/pipeline/plugin.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'
import { DEFAULT_GOVERNOR_SETTINGS } from '../../../plugins/governor/state.ts'
import type { Reply } from '../../../proxy/http/reply.ts'
import { createOutbox } from '../../../proxy/stores/events/lmdb.ts'
import { openStore } from '../../../proxy/stores/store.ts'
import { openRedis } from '../../../proxy/stores/redis.ts'
import cache from '../../../plugins/cache/index.ts'
import { cacheSchema } from '../../../plugins/cache/schema.ts'
import { makeContext } from '../../helpers/make-context.ts'
import { type ManualClock, manualClock } from '../../helpers/manual-clock.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { modelCatalog } from '../../../proxy/pipeline/catalog.ts'

export interface CacheUnderTest {
  readonly hooks: PluginHooks
  readonly clock: ManualClock
  /** Waits for the writes the plugin handed to track(). */
  flush(): Promise<void>
  /** tollgate_cache_requests_total for one result. */
  requests(result: 'hit' | 'miss' | 'coalesced' | 'bypass'): Promise<number>
  /** tollgate_cache_entries. */
  entries(): Promise<number>
}

const unusedPool: WorkerPool = {
  run: () => Promise.reject(new Error('this test expects no pool task')),
  queueSize: 0,
  utilization: 0,
  close: async () => {},
}

export async function setupCache(t: Test, config: z.input<typeof cacheSchema> = {}, pool: WorkerPool = unusedPool, redisUrl?: string): Promise<CacheUnderTest> {
  const store = openStore(freshDataDir(t))
  const redis = redisUrl === undefined ? undefined : openRedis(redisUrl, pino({ level: 'silent' }))
  if (redis !== undefined) {
    t.teardown(() => redis.close())
    await redis.connected()
    await redis.client.flushdb()
  }
  const registry = new Registry()
  const clock = manualClock(Date.UTC(2025, 0, 1))
  const pending: Promise<unknown>[] = []
  t.teardown(async () => {
    await Promise.allSettled(pending)
    await store.close()
  })
  const hooks = await cache.setup(cacheSchema.parse(config), {
    store: store.forPlugin('cache'),
    redis,
    pool,
    metrics: registry,
    log: pino({ level: 'silent' }),
    clock,
    catalog: modelCatalog(),
    track: (work) => {
      pending.push(work)
    },
    events: createOutbox(store.root, clock),
    services: {},
  })
  const value = async (name: string, result?: string) => {
    const metric = await registry.getSingleMetric(name)!.get()
    return metric.values.find((v) => result === undefined || v.labels.result === result)?.value ?? 0
  }
  return {
    hooks,
    clock,
    async flush() {
      await Promise.all(pending.splice(0))
    },
    requests: (result) => value('tollgate_cache_requests_total', result),
    entries: () => value('tollgate_cache_entries'),
  }
}

export function project(changes: Partial<Project> = {}): Project {
  return {
    id: 'proj_a',
    name: 'test',
    plan: 'enterprise',
    budgetDollars: 100,
    cacheTtlSeconds: 3600,
    cacheEnabled: true,
    governor: DEFAULT_GOVERNOR_SETTINGS,
    createdAt: '2025-01-01T00:00:00.000Z',
    ...changes,
  }
}

export interface RequestOptions {
  readonly ai?: z.input<typeof completeRequestSchema>
  readonly project?: Project
  readonly headers?: Record<string, string>
  readonly route?: RouteInfo
  readonly signal?: AbortSignal
}

export const ask = (content: string): z.input<typeof completeRequestSchema> => ({ messages: [{ role: 'user', content }] })

/** A context as it reaches the cache: authenticated and routed to local/gpt-4o-mini. */
export function request(options: RequestOptions = {}): RequestContext {
  const ctx = makeContext({
    ai: options.ai ?? ask('Hello there.'),
    headers: options.headers ?? {},
    ...(options.route === undefined ? {} : { route: options.route }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  })
  ctx.state.auth = { keyId: 'key_a', keyType: 'sk', env: 'prod', testMode: false, project: options.project ?? project() }
  ctx.state.router = {
    provider: 'local',
    model: 'gpt-4o-mini',
    models: ['gpt-4o-mini'],
    messages: ctx.ai!.messages,
    trimmedMessages: 0,
    promptTokens: 5,
    promptTokensBound: 50,
    maxTokens: 1000,
    call: {
      complete: () => Promise.reject(new Error('the cache tests make no model call')),
      stream: () => {
        throw new Error('the cache tests make no model call')
      },
    },
  }
  return ctx
}

/** A fresh answer from the model. */
export function answer(text: string): CompletionResult {
  return {
    text,
    provider: 'local',
    model: 'gpt-4o-mini',
    cacheHit: false,
    usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12, costCents: 0.0123 },
  }
}

export function complete(hooks: PluginHooks, ctx: RequestContext, reason: Outcome = 'ok'): void {
  hooks.onComplete!(Object.assign(ctx, { outcome: { status: reason === 'ok' ? 200 : 502, reason, durationMs: 1 } }) as CompletedContext)
}

/** The cached answer a reply carries, or undefined when the request went on to the model. */
export function cachedResult(reply: Reply | void): CompletionResult | undefined {
  if (reply === undefined) return undefined
  if (reply.kind !== 'completion') throw new Error(`expected a completion reply, got ${reply.kind}`)
  return reply.result
}

/**
 * One request through the hooks: a hit is answered from the cache; a miss gets `text` from the
 * model. Returns the answer the client received.
 */
export async function send(cache: CacheUnderTest, ctx: RequestContext, text: string): Promise<CompletionResult> {
  const { hooks } = cache
  const hit = cachedResult(await hooks.onRequest!(ctx))
  const result = hit ?? answer(text)
  await hooks.onAnswered!(ctx, result, undefined)
  complete(hooks, ctx)
  await cache.flush()
  return result
}
