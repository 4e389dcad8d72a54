// The spec's Usage statistics of a project: GET /api/usage for the key's own project, and
// GET /api/projects/:projectId/usage for its organization's members. Both add the period's totals
// and a row per day, read from the same ledger.
import { z } from 'zod'
import { PermissionError } from '../../proxy/errors.ts'
import type { ProjectRouteSpec, RouteSpec } from '../../proxy/plugin.ts'
import type { Clock } from '../../proxy/clock.ts'
import type { Project } from '../../proxy/project.ts'
import { Reply } from '../../proxy/reply.ts'
import { validate } from '../../proxy/validate.ts'
import type { MeteringStore } from './metering-store.ts'
import { daysOf, monthKey, periodRange, type Period } from './periods.ts'

const period = z.enum(['day', 'week', 'month'], { error: 'period must be day, week or month' }).default('month')
const usageQuery = z.object({
  projectId: z.string({ error: 'projectId is required' }).min(1, 'projectId is required'),
  period,
})
const memberUsageQuery = z.object({ period })

const figures = z.object({
  requests: z.number().int(), tokens: z.number().int(), cost: z.number().describe('Dollars.'),
  unpriced: z.number().int().optional().describe('Requests whose cost is unknown; absent when none.'),
})

/** usageReport's answer, for /openapi.json: the spec's Usage statistics and the totals by day. */
export const usageAnswer = z.object({
  budget: z.object({
    limit: z.number().describe('Monthly credit limit, in dollars.'), used: z.number(), remaining: z.number(),
    overage: z.number().describe('Dollars providers counted beyond the holds this month, recorded and not charged.'),
  }),
  cache: z.object({ hits: z.number().int(), misses: z.number().int(), hitRate: z.number().min(0).max(100).describe('Percent.') }),
  models: z.record(z.string(), figures),
  period: z.object({ start: z.iso.date(), end: z.iso.date() }),
  totals: figures,
  daily: z.array(figures.extend({ date: z.iso.date(), cacheHits: z.number().int() })),
})

const dollars = (micros: number) => Math.round(micros) / 1e6

interface Figures {
  requests: number
  tokens: number
  cost: number
  /** Requests whose cost is unknown (a pass-through answer without usage, or a model without a price); absent when none. */
  unpriced?: number
}

/** Usage statistics of one project for the period that holds `now`. */
export async function usageReport(ledger: MeteringStore, project: Project, period: Period, now: number) {
  const range = periodRange(period, now)
  const [days, row] = await Promise.all([ledger.dayStats(project.id, range), ledger.budget(project.id, monthKey(now))])
  let hits = 0
  let misses = 0
  const models: Record<string, Figures> = {}
  const modelMicros: Record<string, number> = {}
  const daily: Array<Figures & { date: string; cacheHits: number }> = []
  let totalMicros = 0
  for (const date of daysOf(range)) {
    const stats = days.get(date)
    const day = { date, requests: 0, tokens: 0, cost: 0, cacheHits: stats?.hits ?? 0 }
    let dayMicros = 0
    for (const [model, figures] of Object.entries(stats?.models ?? {})) {
      const sum = (models[model] ??= { requests: 0, tokens: 0, cost: 0 })
      sum.requests += figures.requests
      sum.tokens += figures.tokens
      if (figures.unpriced !== undefined) sum.unpriced = (sum.unpriced ?? 0) + figures.unpriced
      modelMicros[model] = (modelMicros[model] ?? 0) + figures.costMicros
      day.requests += figures.requests
      day.tokens += figures.tokens
      dayMicros += figures.costMicros
    }
    hits += stats?.hits ?? 0
    misses += stats?.misses ?? 0
    totalMicros += dayMicros
    daily.push({ ...day, cost: dollars(dayMicros) })
  }
  for (const [model, micros] of Object.entries(modelMicros)) models[model]!.cost = dollars(micros)
  const unpriced = Object.values(models).reduce((sum, figures) => sum + (figures.unpriced ?? 0), 0)
  const limitMicros = Math.round(project.budgetDollars * 1e6)
  const usedMicros = row.usedMicros
  return {
    budget: {
      limit: project.budgetDollars, used: dollars(usedMicros), remaining: dollars(Math.max(0, limitMicros - usedMicros)),
      // What providers counted beyond the holds this month, recorded and not charged.
      overage: dollars(row.overageMicros ?? 0),
    },
    cache: { hits, misses, hitRate: hits + misses === 0 ? 0 : Math.round((hits / (hits + misses)) * 10_000) / 100 },
    models,
    period: range,
    totals: {
      requests: daily.reduce((sum, day) => sum + day.requests, 0),
      tokens: daily.reduce((sum, day) => sum + day.tokens, 0),
      cost: dollars(totalMicros),
      ...(unpriced === 0 ? {} : { unpriced }),
    },
    daily,
  }
}

export function usageRoute(ledger: MeteringStore, clock: Clock): RouteSpec {
  return {
    method: 'GET', path: '/api/usage', name: 'usage', kind: 'keyed', keyTypes: ['sk', 'pk'],
    async handle(ctx) {
      const query = validate(usageQuery, Object.fromEntries(ctx.query), 'query')
      const project = ctx.state.auth!.project
      if (query.projectId !== project.id) throw new PermissionError('This key belongs to another project.')
      // Answers already sent are in the figures: their charges are journaled, wait for their commit.
      await ledger.idle()
      return Reply.json(await usageReport(ledger, project, query.period, clock.now()))
    },
    docs: { query: usageQuery, response: usageAnswer },
  }
}

/** The members' way to the same statistics: the project is in the path, so no key type is listed. */
export function memberUsageRoute(ledger: MeteringStore, clock: Clock): ProjectRouteSpec {
  return {
    method: 'GET', path: '/usage', name: 'usage', keyTypes: [], writes: false,
    async handle(ctx, project) {
      const query = validate(memberUsageQuery, Object.fromEntries(ctx.query), 'query')
      await ledger.idle()
      return Reply.json(await usageReport(ledger, project, query.period, clock.now()))
    },
    docs: { query: memberUsageQuery, response: usageAnswer },
  }
}
