// Per-key request limits: a token bucket per minute with the plan's burst, and the plan's daily
// quota. Every gated answer carries X-RateLimit-Limit/-Remaining/-Reset; a refusal is a 429
// with retry-after.
import { Counter } from 'prom-client'
import type { KeyEnv } from '../../proxy/context.ts'
import { RateLimitedError } from '../../proxy/errors.ts'
import type { GatewayPlugin } from '../../proxy/plugin.ts'
import type { Plan } from '../../proxy/project.ts'
import { Reply } from '../../proxy/reply.ts'
import { takeQuota, type QuotaState } from './daily-quota.ts'
import { rateLimitSchema, type PlanLimits, type RateLimitConfig } from './schema.ts'
import { takeToken, type BucketState } from './token-bucket.ts'

export function effectiveLimits(config: RateLimitConfig, plan: Plan, env: KeyEnv | null): PlanLimits {
  const limits = config.plans[plan]
  if (env !== 'dev') return limits
  const scale = (n: number | null) => (n === null ? null : Math.max(1, Math.floor(n / config.devDivisor)))
  return { perMinute: scale(limits.perMinute), burst: scale(limits.burst), perDay: scale(limits.perDay) }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

export default {
  name: 'rate-limit',
  order: 200,
  gates: ['ai', 'keyed'],
  schema: rateLimitSchema,
  failOpen: true,
  setup(config, { clock, metrics }) {
    const refusals = new Counter({
      name: 'tollgate_rate_limited_total', help: 'Requests refused with 429, by the limit that refused them.',
      labelNames: ['limit'], registers: [metrics],
    })
    const buckets = new Map<string, BucketState>()
    const quotas = new Map<string, QuotaState>()
    return {
      onRequest(ctx) {
        const auth = ctx.state.auth
        if (auth === undefined) return
        const limits = effectiveLimits(config, auth.project.plan, auth.env)
        const now = clock.now()
        const bucket = limits.perMinute === null
          ? undefined
          : takeToken(buckets.get(auth.keyId), { perMinute: limits.perMinute, capacity: limits.burst ?? limits.perMinute }, now)
        const quota = limits.perDay === null ? undefined : takeQuota(quotas.get(auth.keyId), limits.perDay, now)
        if (bucket === undefined && quota === undefined) return
        const allowed = (bucket?.allowed ?? true) && (quota?.allowed ?? true)
        if (bucket !== undefined) buckets.set(auth.keyId, bucket.state)
        if (allowed && quota !== undefined) quotas.set(auth.keyId, quota.state)

        const quotaBinds = quota !== undefined && (!quota.allowed || bucket === undefined)
        // A token bucket's limit is its size, so Remaining never exceeds Limit.
        const limit = quotaBinds ? limits.perDay! : (limits.burst ?? limits.perMinute!)
        const remaining = Math.min(bucket?.remaining ?? Infinity, quota?.remaining ?? Infinity)
        const resetMs = quotaBinds ? quota.resetInMs : bucket!.fullInMs
        ctx.state.rateLimit = { limit, remaining, resetSeconds: seconds(resetMs) }
        ctx.responseHeaders['x-ratelimit-limit'] = String(limit)
        ctx.responseHeaders['x-ratelimit-remaining'] = String(remaining)
        ctx.responseHeaders['x-ratelimit-reset'] = String(seconds(resetMs))
        if (allowed) return
        refusals.inc({ limit: quota !== undefined && !quota.allowed ? 'daily' : 'burst' })
        const retryAfter = quota !== undefined && !quota.allowed ? seconds(quota.resetInMs) : seconds(bucket!.retryAfterMs)
        const message = quota !== undefined && !quota.allowed
          ? `The daily quota of ${limits.perDay} requests for this key is used up; it resets at 00:00 UTC.`
          : `This key may send ${limits.perMinute} requests per minute (bursts of ${limits.burst}); retry in ${retryAfter}s.`
        return Reply.error(new RateLimitedError(retryAfter, message))
      },
    }
  },
} satisfies GatewayPlugin<typeof rateLimitSchema>
