// GET /api/compliance/score: the project's compliance score over a rolling period.
import { z } from 'zod'
import type { Clock } from '../../../proxy/clock.ts'
import type { RouteSpec } from '../../../proxy/plugin.ts'
import { Reply } from '../../../proxy/reply.ts'
import { computeComplianceScore, SEVERITY_WEIGHTS } from '../records/compliance-score.ts'
import type { Violations } from '../records/violations.ts'
import { parseQuery, PROJECT_KEYS, projectIdOf } from './list-query.ts'

const PERIOD_DAYS = { day: 1, week: 7, month: 30 } as const
const DAY_MS = 86_400_000

const scoreQuery = z.strictObject({
  period: z.enum(['day', 'week', 'month'], { error: 'period must be day, week or month' }).default('month'),
})

export function scoreRoute(violations: Violations, clock: Clock): RouteSpec {
  return {
    method: 'GET', path: '/api/compliance/score', name: 'compliance_score', kind: 'keyed', keyTypes: PROJECT_KEYS,
    handle(ctx) {
      const { period } = parseQuery(scoreQuery, ctx)
      const end = clock.now()
      const start = end - PERIOD_DAYS[period] * DAY_MS
      const score = computeComplianceScore(violations.since(projectIdOf(ctx), start))
      return Reply.json({
        ...score,
        period: { name: period, start: new Date(start).toISOString(), end: new Date(end).toISOString() },
        weights: SEVERITY_WEIGHTS,
      })
    },
  }
}
