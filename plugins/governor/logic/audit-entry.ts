// Turns an assessment into what the audit trail writes: the audit record draft (types, places
// and counts of findings, never their values), the violations it opens and the alert it raises.
import type { GovernorMetadata } from '../../../proxy/pipeline/ai-request.ts'
import type { Assessment } from '../assess.ts'
import type { AuditEntry } from '../store/records.ts'
import { highestSeverity } from './verdict/levels.ts'
import type { Verdict } from './verdict/types.ts'
import type { NewId } from '../ids.ts'
import type { Alert, AuditFinding, AuditKind, Decision, ModelEntry, Violation } from '../store/types.ts'

/** Enough places to find every finding of an ordinary request; the counts stay complete beyond it. */
const MAX_LISTED_FINDINGS = 500

export interface GovernedCall {
  readonly kind: AuditKind
  readonly at: string
  readonly projectId: string
  readonly keyId: string
  readonly requestId: string
  readonly metadata: GovernorMetadata
  readonly model: { readonly provider: string; readonly model: string } | null
  readonly settingsVersion: number
  readonly requestAuditId: string | null
}

/** The decision on a request (or a validation: the one a request with that content would get). */
export function requestDecision(verdict: Verdict, blocked: boolean): Exclude<Decision, 'withheld'> {
  if (blocked) return 'blocked'
  return verdict.approved ? 'approved' : 'review'
}

export function answerDecision(verdict: Verdict, withheld: boolean): Decision {
  return withheld ? 'withheld' : requestDecision(verdict, false)
}

export function buildAuditEntry(call: GovernedCall, assessment: Assessment, decision: Decision, newId: NewId, newModel: ModelEntry | undefined): AuditEntry {
  const { verdict } = assessment
  const auditId = newId('audit')
  const violations = call.kind === 'validate' ? [] : violationsOf(call, verdict, auditId, newId)
  const alert = alertOf(call, verdict, decision, auditId, violations, newId)
  const listed: AuditFinding[] = []
  const findingCounts: Record<string, number> = {}
  assessment.findings.forEach((findings, messageIndex) => {
    for (const { type, start, end, score } of findings) {
      findingCounts[type] = (findingCounts[type] ?? 0) + 1
      if (listed.length < MAX_LISTED_FINDINGS) listed.push({ type, messageIndex, start, end, score })
    }
  })
  const total = Object.values(findingCounts).reduce((sum, n) => sum + n, 0)
  const { metadata } = call
  return {
    draft: {
      id: auditId,
      kind: call.kind,
      at: call.at,
      projectId: call.projectId,
      keyId: call.keyId,
      requestId: call.requestId,
      sender: { id: metadata.senderId, role: metadata.senderRole ?? null, department: metadata.department ?? null },
      recipientCountry: metadata.recipientCountry?.toUpperCase() ?? null,
      actionType: metadata.actionType,
      model: call.model,
      decision,
      score: verdict.score,
      level: verdict.level,
      reasons: verdict.reasons,
      findings: listed,
      findingsTruncated: total > listed.length,
      findingCounts,
      ruleMatches: assessment.ruleMatches.map(({ rule, count }) => ({ ruleId: rule.id, count })),
      violationIds: violations.map((v) => v.id),
      alertId: alert?.id ?? null,
      settingsVersion: call.settingsVersion,
      requestAuditId: call.requestAuditId,
    },
    violations,
    alert,
    model: newModel,
  }
}

function violationsOf(call: GovernedCall, verdict: Verdict, auditId: string, newId: NewId): Violation[] {
  const source = call.kind === 'output' ? 'output' : 'request'
  const where = source === 'output' ? "in the model's answer" : 'in the request'
  return verdict.violations.map((v) => ({
    id: newId('violation'),
    projectId: call.projectId,
    auditId,
    source,
    category: v.category,
    type: v.type,
    severity: v.severity,
    count: v.count,
    description: `${v.description} ${where}`,
    status: 'open',
    createdAt: call.at,
    resolvedAt: null,
    caseId: null,
  }))
}

type AlertContent = Pick<Alert, 'type' | 'severity' | 'title' | 'message'>

/** Requests raise an alert at high or critical risk; answers whenever they open a violation. */
function alertOf(call: GovernedCall, verdict: Verdict, decision: Decision, auditId: string, violations: readonly Violation[], newId: NewId): Alert | undefined {
  const found = verdict.violations.length === 0 ? 'no single finding (see the reasons)' : verdict.violations.map((v) => v.description).join(', ')
  const who = `a ${call.metadata.actionType} request from sender ${call.metadata.senderId}`
  const content =
    call.kind === 'request' ? requestAlert(verdict, decision, who, found) : call.kind === 'output' ? answerAlert(violations, decision, who, found) : undefined
  if (content === undefined) return undefined
  return {
    id: newId('alert'),
    projectId: call.projectId,
    auditId,
    ...content,
    violationIds: violations.map((v) => v.id),
    status: 'open',
    createdAt: call.at,
    acknowledgedAt: null,
    resolvedAt: null,
  }
}

function requestAlert(verdict: Verdict, decision: Decision, who: string, found: string): AlertContent | undefined {
  if (verdict.level !== 'high' && verdict.level !== 'critical') return undefined
  const blocked = decision === 'blocked'
  return {
    type: blocked ? 'blocked_request' : 'high_risk_request',
    severity: verdict.level === 'critical' ? 'CRITICAL' : 'HIGH',
    title: blocked ? 'Request blocked by Governor' : `${verdict.level === 'critical' ? 'Critical' : 'High'}-risk request`,
    message: `${who.charAt(0).toUpperCase()}${who.slice(1)} scored ${verdict.score} (${verdict.level})${blocked ? ' and was blocked in strict mode' : ''}. Found: ${found}.`,
  }
}

function answerAlert(violations: readonly Violation[], decision: Decision, who: string, found: string): AlertContent | undefined {
  const severity = highestSeverity(violations.map((v) => v.severity))
  if (severity === undefined) return undefined
  if (decision === 'withheld') {
    return {
      type: 'withheld_output',
      severity,
      title: 'Model answer withheld by Governor',
      message: `The answer to ${who} was withheld in strict mode; it held: ${found}.`,
    }
  }
  if (decision === 'blocked') {
    return {
      type: 'blocked_output',
      severity,
      title: 'Model answer blocked by Governor',
      message: `The streamed answer to ${who} was stopped in strict mode before its findings were sent; it held: ${found}.`,
    }
  }
  return { type: 'sensitive_output', severity, title: 'Sensitive data in a model answer', message: `The answer to ${who} held: ${found}.` }
}
