// GET /api/compliance/score: the project's compliance score over a rolling period, and
// GET /api/compliance/score/history: that score as it stood at the end of each of the last days.
import { z } from 'zod'
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { computeComplianceScore, scoreAt, SEVERITY_WEIGHTS } from '../logic/compliance-score.ts'
import type { Violations } from '../store/records.ts'
import { scoreAnswer, scoreHistoryAnswer } from './answers.ts'
import { parseQuery, PROJECT_KEYS } from './list-query.ts'

const PERIOD_DAYS = { day: 1, week: 7, month: 30 } as const
const DAY_MS = 86_400_000
const MAX_HISTORY_DAYS = 90

const period = z.enum(['day', 'week', 'month'], { error: 'period must be day, week or month' }).default('month')
const scoreQuery = z.strictObject({ period })
const historyQuery = z.strictObject({
  period,
  days: z.coerce
    .number({ error: 'days must be a number' })
    .int('days must be a whole number')
    .min(1, `days must be between 1 and ${MAX_HISTORY_DAYS}`)
    .max(MAX_HISTORY_DAYS, `days must be between 1 and ${MAX_HISTORY_DAYS}`)
    .default(30),
})

export function scoreRoutes(violations: Violations, clock: Clock): ProjectRouteSpec[] {
  return [
    {
      keyTypes: PROJECT_KEYS,
      writes: false,
      method: 'GET',
      path: '/compliance/score',
      name: 'compliance_score',
      docs: { query: scoreQuery, response: scoreAnswer },
      async handle(ctx, project) {
        const query = parseQuery(scoreQuery, ctx)
        const end = clock.now()
        const start = end - PERIOD_DAYS[query.period] * DAY_MS
        const score = computeComplianceScore(await violations.since(project.id, start))
        return Reply.json({
          ...score,
          period: { name: query.period, start: new Date(start).toISOString(), end: new Date(end).toISOString() },
          weights: SEVERITY_WEIGHTS,
        })
      },
    },
    {
      keyTypes: PROJECT_KEYS,
      writes: false,
      method: 'GET',
      path: '/compliance/score/history',
      name: 'compliance_score_history',
      docs: { query: historyQuery, response: scoreHistoryAnswer },
      async handle(ctx, project) {
        const query = parseQuery(historyQuery, ctx)
        const now = clock.now()
        const windowMs = PERIOD_DAYS[query.period] * DAY_MS
        // One point at the end of each UTC day, the last one now.
        const todayStart = now - (now % DAY_MS)
        const times = Array.from({ length: query.days }, (_, i) => (i === query.days - 1 ? now : todayStart - (query.days - 2 - i) * DAY_MS - 1))
        const found = await violations.since(project.id, times[0]! - windowMs)
        const points = times.map((at) => {
          const { score, openViolations, totalViolations } = scoreAt(found, at, windowMs)
          return { at: new Date(at).toISOString(), score, openViolations, totalViolations }
        })
        return Reply.json({ period: query.period, points })
      },
    },
  ]
}
