// GET /api/usage: the spec's Usage statistics for the key's own project.
import { z } from 'zod'
import { PermissionError } from '../../proxy/errors.ts'
import type { RouteSpec } from '../../proxy/plugin.ts'
import type { Clock } from '../../proxy/clock.ts'
import { Reply } from '../../proxy/reply.ts'
import { validate } from '../../proxy/validate.ts'
import type { Ledger } from './ledger.ts'
import { daysOf, monthKey, periodRange } from './periods.ts'

const usageQuery = z.object({
  projectId: z.string({ error: 'projectId is required' }).min(1, 'projectId is required'),
  period: z.enum(['day', 'week', 'month'], { error: 'period must be day, week or month' }).default('month'),
})

const dollars = (micros: number) => Math.round(micros) / 1e6

export function usageRoute(ledger: Ledger, clock: Clock): RouteSpec {
  return {
    method: 'GET', path: '/api/usage', name: 'usage', kind: 'keyed', keyTypes: ['sk', 'pk'],
    handle(ctx) {
      const query = validate(usageQuery, Object.fromEntries(ctx.query), 'query')
      const project = ctx.state.auth!.project
      if (query.projectId !== project.id) throw new PermissionError('This key belongs to another project.')
      const now = clock.now()
      const range = periodRange(query.period, now)
      let hits = 0
      let misses = 0
      const models: Record<string, { requests: number; tokens: number; cost: number }> = {}
      const costs: Record<string, number> = {}
      for (const day of daysOf(range)) {
        const stats = ledger.dayStats(project.id, day)
        if (stats === undefined) continue
        hits += stats.hits
        misses += stats.misses
        for (const [model, figures] of Object.entries(stats.models)) {
          const sum = (models[model] ??= { requests: 0, tokens: 0, cost: 0 })
          sum.requests += figures.requests
          sum.tokens += figures.tokens
          costs[model] = (costs[model] ?? 0) + figures.costMicros
        }
      }
      for (const [model, micros] of Object.entries(costs)) models[model]!.cost = dollars(micros)
      const limitMicros = Math.round(project.budgetDollars * 1e6)
      const row = ledger.budget(project.id, monthKey(now))
      const usedMicros = row.usedMicros
      return Reply.json({
        budget: {
          limit: project.budgetDollars, used: dollars(usedMicros), remaining: dollars(Math.max(0, limitMicros - usedMicros)),
          // What providers counted beyond the holds this month, recorded and not charged.
          overage: dollars(row.overageMicros ?? 0),
        },
        cache: { hits, misses, hitRate: hits + misses === 0 ? 0 : Math.round((hits / (hits + misses)) * 10_000) / 100 },
        models,
        period: range,
      })
    },
  }
}
