import { z } from 'zod'

const limits = z.strictObject({
  /** Sustained requests per minute; null is unlimited. */
  perMinute: z.number().int().positive().nullable(),
  /** Requests that may arrive at once (the bucket's size). */
  burst: z.number().int().positive().nullable(),
  /** Requests per UTC day; null is unlimited. */
  perDay: z.number().int().positive().nullable(),
})

export type PlanLimits = z.output<typeof limits>

// The plans of the spec's per-minute tables; pro and startup are one plan under two names.
const DEFAULT_PLANS = {
  free: { perMinute: 10, burst: 20, perDay: 1_000 },
  pro: { perMinute: 100, burst: 200, perDay: 100_000 },
  startup: { perMinute: 100, burst: 200, perDay: 100_000 },
  growth: { perMinute: 500, burst: 1_000, perDay: null },
  enterprise: { perMinute: null, burst: null, perDay: null },
}

export const rateLimitSchema = z.strictObject({
  plans: z.strictObject({ free: limits, pro: limits, startup: limits, growth: limits, enterprise: limits }).default(DEFAULT_PLANS),
  /** Development keys get the plan's limits divided by this. */
  devDivisor: z.number().int().min(1).default(10),
  /** Keep the counters in the store so that processes sharing it enforce one limit (set by --workers). */
  shared: z.boolean().default(false),
  /** When the limits cannot be checked (Redis away), let requests through unchecked instead of answering 503. */
  failOpen: z.boolean().default(false),
})

export type RateLimitConfig = z.output<typeof rateLimitSchema>
