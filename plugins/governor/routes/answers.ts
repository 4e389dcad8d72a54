// The compliance routes' answers, as /openapi.json describes them: the records' fields a client
// reads. Records may carry more fields than these; clients ignore what they do not know.
import { z } from 'zod'
import { SEVERITIES, VIOLATION_TYPES } from '../logic/verdict/types.ts'

const instant = z.iso.datetime()
const severity = z.enum(SEVERITIES)

export const pageOf = (item: z.ZodType) =>
  z.object({
    data: z.array(item),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  })

export const violationAnswer = z.looseObject({
  id: z.string(),
  projectId: z.string(),
  auditId: z.string(),
  source: z.enum(['request', 'output']),
  category: z.string(),
  type: z.enum(VIOLATION_TYPES),
  severity,
  count: z.number().int(),
  description: z.string(),
  status: z.enum(['open', 'resolved']),
  createdAt: instant,
  resolvedAt: instant.nullable(),
  caseId: z.string().nullable(),
})

export const alertAnswer = z.looseObject({
  id: z.string(),
  projectId: z.string(),
  auditId: z.string(),
  type: z.enum(['high_risk_request', 'blocked_request', 'sensitive_output', 'withheld_output']),
  severity,
  title: z.string(),
  message: z.string(),
  violationIds: z.array(z.string()),
  status: z.enum(['open', 'acknowledged', 'resolved']),
  createdAt: instant,
  acknowledgedAt: instant.nullable(),
  resolvedAt: instant.nullable(),
})

export const caseAnswer = z.looseObject({
  id: z.string(),
  projectId: z.string(),
  title: z.string(),
  status: z.string(),
  severity,
  violationIds: z.array(z.string()),
  notes: z.array(z.object({ at: instant, text: z.string() })),
  createdAt: instant,
  updatedAt: instant,
  resolvedAt: instant.nullable(),
})

export const modelAnswer = z.looseObject({
  id: z.string(),
  projectId: z.string(),
  provider: z.string(),
  model: z.string(),
  riskClassification: z.enum(['unclassified', 'low', 'medium', 'high']),
  approvalStatus: z.enum(['pending', 'approved', 'rejected']),
  source: z.enum(['auto', 'manual']),
  notes: z.string().nullable(),
  createdAt: instant,
  updatedAt: instant,
})

export const ruleAnswer = z.looseObject({
  id: z.string(),
  name: z.string(),
  pattern: z.string(),
  regex: z.boolean(),
  weight: z.number(),
  severity,
})

export const deletedAnswer = z.object({ id: z.string(), deleted: z.literal(true) })

const bySeverity = (value: z.ZodNumber) => z.object({ LOW: value, MEDIUM: value, HIGH: value, CRITICAL: value })
const openBySeverity = bySeverity(z.number().int())

export const scoreAnswer = z.object({
  score: z.number().min(0).max(100),
  openViolations: openBySeverity,
  totalViolations: z.number().int(),
  period: z.object({ name: z.enum(['day', 'week', 'month']), start: instant, end: instant }),
  weights: bySeverity(z.number()),
})

export const scoreHistoryAnswer = z.object({
  period: z.enum(['day', 'week', 'month']),
  points: z.array(z.object({ at: instant, score: z.number(), openViolations: openBySeverity, totalViolations: z.number().int() })),
})

export const auditAnswer = z.looseObject({
  id: z.string(),
  kind: z.string(),
  at: instant,
  projectId: z.string(),
  requestId: z.string(),
  actionType: z.string(),
  decision: z.string(),
  score: z.number(),
  level: z.enum(['low', 'medium', 'high', 'critical']),
  violationIds: z.array(z.string()),
  alertId: z.string().nullable(),
  seq: z.number().int(),
  prevHash: z.string(),
  hash: z.string(),
})

export const auditCheckAnswer = z.object({
  auditId: z.string(),
  seq: z.number().int(),
  hash: z.string(),
  intact: z.boolean(),
  records: z.number().int().describe('Records verified along the chain.'),
  brokenAt: z.string().optional(),
  reason: z.string().optional(),
})

export const validateAnswer = z.object({
  validated: z.literal(true),
  approved: z.boolean(),
  decision: z.enum(['approved', 'review', 'blocked', 'withheld']),
  riskLevel: z.enum(['low', 'medium', 'high', 'critical']),
  riskScore: z.number().min(0).max(100),
  violations: z.array(z.object({ category: z.string(), type: z.enum(VIOLATION_TYPES), severity, count: z.number().int(), description: z.string() })),
  findings: z.array(z.object({ type: z.string(), start: z.number().int(), end: z.number().int(), score: z.number(), messageIndex: z.number().int() })),
  reasons: z.array(z.object({ code: z.string(), points: z.number(), detail: z.string() })),
  auditId: z.string(),
})
