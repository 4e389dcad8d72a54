// The Governor's stored records. None holds scanned content or a detected value: findings are
// kept as type, place and confidence only.
import type { ActionType } from '../../../proxy/pipeline/ai-request.ts'
import type { Reason, RiskLevel, Severity, ViolationType } from '../logic/verdict/types.ts'

export type Decision = 'approved' | 'review' | 'blocked' | 'withheld'
/** request: a governed AI request; output: the model's answer to one; validate: /api/governor/validate. */
export type AuditKind = 'request' | 'output' | 'validate'

export interface AuditFinding {
  readonly type: string
  /** Index of the message (0 for an answer). */
  readonly messageIndex: number
  readonly start: number
  readonly end: number
  readonly score: number
}

/** An audit record before it is chained: the trail adds seq, prevHash and hash in its transaction. */
export interface AuditDraft {
  readonly id: string
  readonly kind: AuditKind
  readonly at: string
  readonly projectId: string
  readonly keyId: string
  readonly requestId: string
  readonly sender: { readonly id: string; readonly role: string | null; readonly department: string | null }
  readonly recipientCountry: string | null
  readonly actionType: ActionType
  readonly model: { readonly provider: string; readonly model: string } | null
  readonly decision: Decision
  readonly score: number
  readonly level: RiskLevel
  readonly reasons: readonly Reason[]
  readonly findings: readonly AuditFinding[]
  /** More findings were made than `findings` lists; the counts are complete. */
  readonly findingsTruncated: boolean
  readonly findingCounts: Readonly<Record<string, number>>
  readonly ruleMatches: ReadonlyArray<{ readonly ruleId: string; readonly count: number }>
  readonly violationIds: readonly string[]
  readonly alertId: string | null
  readonly settingsVersion: number
  /** On an output record: the audit id of the request it answers. */
  readonly requestAuditId: string | null
}

export interface AuditRecord extends AuditDraft {
  /** 1, 2, 3 … per project. */
  readonly seq: number
  readonly prevHash: string
  /** SHA-256 (hex) of the canonical encoding of every other field. */
  readonly hash: string
}

export interface AuditHead {
  readonly seq: number
  readonly id: string
  readonly hash: string
}

export type ViolationStatus = 'open' | 'resolved'

export interface Violation {
  readonly id: string
  readonly projectId: string
  readonly auditId: string
  readonly source: 'request' | 'output'
  /** The entity type or custom rule id it was found for. */
  readonly category: string
  readonly type: ViolationType
  readonly severity: Severity
  readonly count: number
  readonly description: string
  readonly status: ViolationStatus
  readonly createdAt: string
  readonly resolvedAt: string | null
  /** The case whose resolution resolved it. */
  readonly caseId: string | null
}

export type AlertStatus = 'open' | 'acknowledged' | 'resolved'
export type AlertType = 'high_risk_request' | 'blocked_request' | 'sensitive_output' | 'withheld_output' | 'blocked_output'

export interface Alert {
  readonly id: string
  readonly projectId: string
  readonly auditId: string
  readonly type: AlertType
  readonly severity: Severity
  readonly title: string
  readonly message: string
  readonly violationIds: readonly string[]
  readonly status: AlertStatus
  readonly createdAt: string
  readonly acknowledgedAt: string | null
  readonly resolvedAt: string | null
}

export type CaseStatus = 'open' | 'investigating' | 'resolved'

interface CaseNote {
  readonly at: string
  readonly text: string
}

export interface Case {
  readonly id: string
  readonly projectId: string
  readonly title: string
  readonly status: CaseStatus
  /** The highest severity among its violations. */
  readonly severity: Severity
  readonly violationIds: readonly string[]
  readonly notes: readonly CaseNote[]
  readonly createdAt: string
  readonly updatedAt: string
  readonly resolvedAt: string | null
}

export type ModelRisk = 'unclassified' | 'low' | 'medium' | 'high'
export type ModelApproval = 'pending' | 'approved' | 'rejected'

export interface ModelEntry {
  readonly id: string
  readonly projectId: string
  readonly provider: string
  readonly model: string
  readonly riskClassification: ModelRisk
  readonly approvalStatus: ModelApproval
  /** auto: registered on its first governed use; manual: added through the API. */
  readonly source: 'auto' | 'manual'
  readonly notes: string | null
  readonly createdAt: string
  readonly updatedAt: string
}
