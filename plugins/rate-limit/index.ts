// Per-key request limits: a token bucket per minute with the plan's burst, and the plan's daily
// quota. Every gated answer carries X-RateLimit-Limit/-Remaining/-Reset; a refusal is a 429
// with retry-after. With `shared`, the state lives in the store so that processes sharing it
// (tollgate serve --workers N) enforce one limit between them instead of N.
import { Counter } from 'prom-client'
import type { KeyEnv, RequestContext } from '../../proxy/context.ts'
import { RateLimitedError } from '../../proxy/errors.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import type { Plan } from '../../proxy/project.ts'
import { Reply } from '../../proxy/reply.ts'
import { checkLimits, type KeyLimitState, type LimitVerdict } from './check-limits.ts'
import { rateLimitSchema, type PlanLimits, type RateLimitConfig } from './schema.ts'
import { rateLimitLogFields } from './state.ts'

export function effectiveLimits(config: RateLimitConfig, plan: Plan, env: KeyEnv | null): PlanLimits {
  const limits = config.plans[plan]
  if (env !== 'dev') return limits
  const scale = (n: number | null) => (n === null ? null : Math.max(1, Math.floor(n / config.devDivisor)))
  return { perMinute: scale(limits.perMinute), burst: scale(limits.burst), perDay: scale(limits.perDay) }
}

export default {
  name: 'rate-limit',
  order: 200,
  gates: ['ai', 'keyed'],
  schema: rateLimitSchema,
  failOpen: true,
  setup(config, { clock, metrics, store }) {
    const refusals = new Counter({
      name: 'tollgate_rate_limited_total', help: 'Requests refused with 429, by the limit that refused them.',
      labelNames: ['limit'], registers: [metrics],
    })
    const memory = new Map<string, KeyLimitState>()
    const shared = config.shared ? store.open<KeyLimitState>('key-state') : undefined

    function apply(ctx: RequestContext, verdict: LimitVerdict | undefined): Reply | undefined {
      if (verdict === undefined) return undefined
      ctx.state.rateLimit = { limit: verdict.limit, remaining: verdict.remaining, resetSeconds: verdict.resetSeconds }
      ctx.responseHeaders['x-ratelimit-limit'] = String(verdict.limit)
      ctx.responseHeaders['x-ratelimit-remaining'] = String(verdict.remaining)
      ctx.responseHeaders['x-ratelimit-reset'] = String(verdict.resetSeconds)
      if (verdict.refusal === undefined) return undefined
      refusals.inc({ limit: verdict.refusal.by })
      return Reply.error(new RateLimitedError(verdict.refusal.retryAfterSeconds, verdict.refusal.message))
    }

    return {
      logFields: rateLimitLogFields,
      onRequest(ctx) {
        const auth = ctx.state.auth
        if (auth === undefined) return
        const limits = effectiveLimits(config, auth.project.plan, auth.env)
        if (shared === undefined) {
          const verdict = checkLimits(limits, memory.get(auth.keyId), clock.now())
          if (verdict !== undefined) memory.set(auth.keyId, verdict.next)
          return apply(ctx, verdict)
        }
        // Read, decide and write in one transaction: LMDB serializes it against other processes.
        return store.transaction(() => {
          const verdict = checkLimits(limits, shared.get(auth.keyId), clock.now())
          if (verdict !== undefined) shared.put(auth.keyId, verdict.next)
          return verdict
        }).then((verdict) => apply(ctx, verdict))
      },
    }
  },
} satisfies GatewayPlugin<typeof rateLimitSchema>
