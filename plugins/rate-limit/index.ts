// Per-key request limits: a token bucket per minute with the plan's burst (narrowed by the key's
// own rpm when it has one), and the plan's daily quota. Every gated answer carries X-RateLimit-Limit/-Remaining/-Reset; a refusal is a 429
// with retry-after. With REDIS_URL the state lives in Redis, so that every gateway on it enforces
// one limit between them instead of one each; else with `shared` it lives in the store, for the
// processes sharing it (tollgate serve --workers N); both are drawn on a leased slice at a time
// (store/leased.ts). A store that cannot answer refuses the request (503) unless the operator set
// `failOpen`.
import { Counter } from 'prom-client'
import type { KeyEnv, RequestContext } from '../../proxy/pipeline/context.ts'
import { DependencyUnavailableError } from '../../proxy/pipeline/errors.ts'
import { RateLimitedError } from './errors.ts'
import type { GatewayPlugin } from '../../proxy/pipeline/plugin.ts'
import type { Plan } from '../../proxy/pipeline/project.ts'
import { Reply } from '../../proxy/http/reply.ts'
import type { LimitVerdict } from './logic/check-limits.ts'
import { openLimits, type LimitStore } from './store/index.ts'
import { rateLimitSchema, type PlanLimits, type RateLimitConfig } from './schema.ts'
import { rateLimitLogFields } from './state.ts'

export function effectiveLimits(config: RateLimitConfig, plan: Plan, env: KeyEnv | null): PlanLimits {
  const limits = config.plans[plan]
  if (env !== 'dev') return limits
  const scale = (n: number | null) => (n === null ? null : Math.max(1, Math.floor(n / config.devDivisor)))
  return { perMinute: scale(limits.perMinute), burst: scale(limits.burst), perDay: scale(limits.perDay) }
}

/** The plan's limits narrowed by a key's own requests per minute, which is also its burst. */
export function withKeyRpm(limits: PlanLimits, rpm: number | undefined): PlanLimits {
  if (rpm === undefined) return limits
  return { perMinute: Math.min(limits.perMinute ?? rpm, rpm), burst: Math.min(limits.burst ?? rpm, rpm), perDay: limits.perDay }
}

export default {
  name: 'rate-limit',
  order: 200,
  gates: ['ai', 'keyed'],
  reads: ['auth'],
  schema: rateLimitSchema,
  setup(config, deps) {
    const { clock, metrics, log } = deps
    const refusals = new Counter({
      name: 'tollgate_rate_limited_total',
      help: 'Requests refused with 429, by the limit that refused them.',
      labelNames: ['limit'],
      registers: [metrics],
    })
    const failedOpen = new Counter({
      name: 'tollgate_rate_limit_fail_open_total',
      help: 'Requests let through unchecked because the rate-limit store could not answer (failOpen).',
      registers: [metrics],
    })
    const limitStore = openLimits(deps, config)
    // Logged once per outage: the first failure after a success.
    let outage = false

    function apply(ctx: RequestContext, verdict: LimitVerdict | undefined): Reply | undefined {
      outage = false
      if (verdict === undefined) return undefined
      ctx.state.rateLimit = { limit: verdict.limit, remaining: verdict.remaining, resetSeconds: verdict.resetSeconds }
      ctx.responseHeaders['x-ratelimit-limit'] = String(verdict.limit)
      ctx.responseHeaders['x-ratelimit-remaining'] = String(verdict.remaining)
      ctx.responseHeaders['x-ratelimit-reset'] = String(verdict.resetSeconds)
      if (verdict.refusal === undefined) return undefined
      refusals.inc({ limit: verdict.refusal.by })
      return Reply.error(new RateLimitedError(verdict.refusal.retryAfterSeconds, verdict.refusal.message))
    }

    function unchecked(err: unknown): Reply | undefined {
      if (config.failOpen) {
        failedOpen.inc()
        if (!outage) log.warn({ err }, 'rate limits cannot be checked; letting requests through unchecked (failOpen) until the store answers again')
        outage = true
        return undefined
      }
      // The connection has already said the dependency is away; each refused request need not.
      if (err instanceof DependencyUnavailableError) return Reply.error(err)
      throw err
    }

    return {
      logFields: rateLimitLogFields,
      close: async () => limitStore.close?.(),
      onRequest(ctx) {
        const auth = ctx.state.auth
        if (auth === undefined) return
        const limits = withKeyRpm(effectiveLimits(config, auth.project.plan, auth.env), auth.keyRpm)
        // An unlimited plan has nothing to count: no store is asked, shared or not.
        if (limits.perMinute === null && limits.perDay === null) return
        let verdict: ReturnType<LimitStore['check']>
        try {
          verdict = limitStore.check(auth.keyId, limits, clock.now())
        } catch (err) {
          return unchecked(err)
        }
        if (verdict instanceof Promise) return verdict.then((v) => apply(ctx, v), unchecked)
        return apply(ctx, verdict)
      },
    }
  },
} satisfies GatewayPlugin<typeof rateLimitSchema>
