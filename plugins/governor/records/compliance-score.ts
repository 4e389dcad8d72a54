// A project's compliance score: 100 less the weight of the violations still open among those
// found in the period, never below 0. Pure; the route reads the violations.
import type { Severity } from '../verdict/types.ts'
import type { Violation } from './types.ts'

export const SEVERITY_WEIGHTS: Readonly<Record<Severity, number>> = { LOW: 1, MEDIUM: 3, HIGH: 8, CRITICAL: 20 }

export interface ComplianceScore {
  readonly score: number
  readonly openViolations: Readonly<Record<Severity, number>>
  readonly totalViolations: number
}

export function computeComplianceScore(violations: Iterable<Pick<Violation, 'severity' | 'status'>>): ComplianceScore {
  const open: Record<Severity, number> = { LOW: 0, MEDIUM: 0, HIGH: 0, CRITICAL: 0 }
  let total = 0
  let penalty = 0
  for (const violation of violations) {
    total++
    if (violation.status !== 'open') continue
    open[violation.severity]++
    penalty += SEVERITY_WEIGHTS[violation.severity]
  }
  return { score: Math.max(0, 100 - penalty), openViolations: open, totalViolations: total }
}
