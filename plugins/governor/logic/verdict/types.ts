// The verdict's vocabulary: levels, severities, violation types and the explainable result.
// Pure types; the scoring lives in compute-verdict.ts and the tables beside it.
import type { ActionType } from '../../../../proxy/pipeline/ai-request.ts'
import type { CustomRule } from '../../state.ts'
import type { EntityType } from '../../../../workers/scan/types.ts'

export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const
export type RiskLevel = (typeof RISK_LEVELS)[number]

export const SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const
export type Severity = (typeof SEVERITIES)[number]

export const VIOLATION_TYPES = ['PRIVACY', 'SECURITY', 'POLICY'] as const
export type ViolationType = (typeof VIOLATION_TYPES)[number]

/** One scoring step, so a verdict can be explained; detail never holds scanned content. */
export interface Reason {
  readonly code: string
  readonly points: number
  readonly detail: string
}

/** What the verdict needs of a finding: its type and the detector's confidence. */
export interface ScoredFinding {
  readonly type: EntityType
  readonly score: number
}

/** A project rule that matched, and how often. */
export interface RuleMatch {
  readonly rule: CustomRule
  readonly count: number
}

export interface VerdictInput {
  readonly actionType: ActionType
  readonly senderRole?: string | undefined
  readonly department?: string | undefined
  readonly recipientCountry?: string | undefined
  readonly findings: readonly ScoredFinding[]
  readonly ruleMatches: readonly RuleMatch[]
  readonly autoApproveThreshold: number
}

/** One distinct category of medium severity or above: an entity type, or a custom rule's id. */
export interface VerdictViolation {
  readonly category: string
  readonly type: ViolationType
  readonly severity: Severity
  readonly count: number
  readonly description: string
}

export interface Verdict {
  readonly score: number
  readonly level: RiskLevel
  readonly approved: boolean
  /** A category of CRITICAL severity was found (a secret, special-category data, a critical rule). */
  readonly criticalFinding: boolean
  readonly reasons: readonly Reason[]
  readonly violations: readonly VerdictViolation[]
}
