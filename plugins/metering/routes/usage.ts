// The spec's Usage statistics of a project: GET /api/usage for the key's own project, and
// GET /api/projects/:projectId/usage for its organization's members. Both add the period's totals
// and a row per day, read from the same ledger; with `by`, the period's spend by key, end user or tag.
import { z } from 'zod'
import { PermissionError } from '../../../proxy/pipeline/errors.ts'
import type { ProjectRouteSpec, RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { Project } from '../../../proxy/pipeline/project.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { validate } from '../../../proxy/http/validate.ts'
import { microsOfDollars } from '../../../proxy/pipeline/price.ts'
import type { MeteringStore } from '../store/index.ts'
import { daysOf, monthKey, periodRange, type Period } from '../logic/periods.ts'
import { SPEND_DIMENSIONS, type SpendDimension, type SpendRow } from '../logic/spend-breakdown.ts'
import { remainingMicros } from '../logic/budget.ts'

const period = z.enum(['day', 'week', 'month'], { error: 'period must be day, week or month' }).default('month')
const by = z
  .enum(SPEND_DIMENSIONS, { error: 'by must be key, user or tag' })
  .optional()
  .describe("Adds `breakdown`: the period's spend by API key, end user or x-gateway-tags tag.")
const usageQuery = z.object({
  projectId: z.string({ error: 'projectId is required' }).min(1, 'projectId is required'),
  period,
  by,
})
const memberUsageQuery = z.object({ period, by })

/** A key's id and how lists show it: never the key itself. */
export type KeyLabel = (keyId: string) => { readonly prefix: string; readonly name: string } | undefined

const figures = z.object({
  requests: z.number().int(),
  tokens: z.number().int(),
  cost: z.number().describe('Dollars.'),
  unpriced: z.number().int().optional().describe('Requests whose cost is unknown; absent when none.'),
})

/** usageReport's answer, for /openapi.json: the spec's Usage statistics and the totals by day. */
export const usageAnswer = z.object({
  budget: z.object({
    limit: z.number().describe('Monthly credit limit, in dollars.'),
    used: z.number(),
    remaining: z.number(),
    overage: z.number().describe('Dollars providers counted beyond the holds this month, recorded and not charged.'),
  }),
  cache: z.object({ hits: z.number().int(), misses: z.number().int(), hitRate: z.number().min(0).max(100).describe('Percent.') }),
  models: z.record(z.string(), figures),
  period: z.object({ start: z.iso.date(), end: z.iso.date() }),
  totals: figures,
  daily: z.array(figures.extend({ date: z.iso.date(), cacheHits: z.number().int() })),
  breakdown: z
    .array(
      z.object({
        key: z.string().optional().describe("With by=key: the key's id; its prefix and name beside it while the key exists."),
        prefix: z.string().optional(),
        name: z.string().optional(),
        user: z.string().optional().describe("With by=user: OpenAI's `user` or Anthropic's `metadata.user_id`."),
        tag: z.string().optional().describe('With by=tag: one x-gateway-tags tag; a request with several counts for each.'),
        requests: z.number().int(),
        tokens: z.number().int(),
        costDollars: z.number(),
      }),
    )
    .optional()
    .describe('With `by` only: one row per key, user or tag that had a request in the period, the costliest first.'),
})

const dollars = (micros: number) => Math.round(micros) / 1e6

interface Figures {
  requests: number
  tokens: number
  cost: number
  /** Requests whose cost is unknown (a pass-through answer without usage, or a model without a price); absent when none. */
  unpriced?: number
}

function breakdownRow(dimension: SpendDimension, row: SpendRow, keyLabel: KeyLabel) {
  const figures = { requests: row.requests, tokens: row.tokens, costDollars: dollars(row.costMicros) }
  if (dimension === 'user') return { user: row.value, ...figures }
  if (dimension === 'tag') return { tag: row.value, ...figures }
  const label = keyLabel(row.value)
  return { key: row.value, ...(label === undefined ? {} : { prefix: label.prefix, name: label.name }), ...figures }
}

/** Usage statistics of one project for the period that holds `now`; with `by`, its breakdown too. */
async function usageReport(ledger: MeteringStore, project: Project, period: Period, now: number, by: SpendDimension | undefined, keyLabel: KeyLabel) {
  const range = periodRange(period, now)
  const [days, row, breakdown] = await Promise.all([
    ledger.dayStats(project.id, range),
    ledger.budget(project.id, monthKey(now)),
    by === undefined ? undefined : ledger.spend(project.id, range, by).then((rows) => rows.map((spent) => breakdownRow(by, spent, keyLabel))),
  ])
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
  const limitMicros = microsOfDollars(project.budgetDollars)
  const usedMicros = row.usedMicros
  return {
    budget: {
      limit: project.budgetDollars,
      used: dollars(usedMicros),
      remaining: dollars(remainingMicros(usedMicros, limitMicros)),
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
    ...(breakdown === undefined ? {} : { breakdown }),
  }
}

export function usageRoute(ledger: MeteringStore, clock: Clock, keyLabel: KeyLabel): RouteSpec {
  return {
    method: 'GET',
    path: '/api/usage',
    name: 'usage',
    kind: 'keyed',
    keyTypes: ['sk', 'pk'],
    async handle(ctx) {
      const query = validate(usageQuery, Object.fromEntries(ctx.query), 'query')
      const project = ctx.state.auth!.project
      if (query.projectId !== project.id) throw new PermissionError('This key belongs to another project.')
      // Answers already sent are in the figures: their charges are journaled, wait for their commit.
      await ledger.idle()
      return Reply.json(await usageReport(ledger, project, query.period, clock.now(), query.by, keyLabel))
    },
    docs: { query: usageQuery, response: usageAnswer },
  }
}

/** The members' way to the same statistics: the project is in the path, so no key type is listed. */
export function memberUsageRoute(ledger: MeteringStore, clock: Clock, keyLabel: KeyLabel): ProjectRouteSpec {
  return {
    method: 'GET',
    path: '/usage',
    name: 'usage',
    keyTypes: [],
    writes: false,
    async handle(ctx, project) {
      const query = validate(memberUsageQuery, Object.fromEntries(ctx.query), 'query')
      await ledger.idle()
      return Reply.json(await usageReport(ledger, project, query.period, clock.now(), query.by, keyLabel))
    },
    docs: { query: memberUsageQuery, response: usageAnswer },
  }
}
