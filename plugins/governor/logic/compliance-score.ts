// A project's compliance score: 100 less the weight of the violations still open among those
// found in the period, never below 0, now or as it stood at an earlier time. Pure; the routes read
// the violations.
import type { Severity } from './verdict/types.ts'
import type { Violation } from '../store/types.ts'

export const SEVERITY_WEIGHTS: Readonly<Record<Severity, number>> = { LOW: 1, MEDIUM: 3, HIGH: 8, CRITICAL: 20 }

interface ComplianceScore {
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

/**
 * The score as it stood at `at`: the violations found in the window that ended then, each counted
 * open unless it had been resolved by then. `found` must hold every violation of that window.
 */
export function scoreAt(found: readonly Pick<Violation, 'severity' | 'createdAt' | 'resolvedAt'>[], at: number, windowMs: number): ComplianceScore {
  const asThen: Array<Pick<Violation, 'severity' | 'status'>> = []
  for (const violation of found) {
    const createdAt = Date.parse(violation.createdAt)
    if (createdAt < at - windowMs || createdAt > at) continue
    const resolved = violation.resolvedAt !== null && Date.parse(violation.resolvedAt) <= at
    asThen.push({ severity: violation.severity, status: resolved ? 'resolved' : 'open' })
  }
  return computeComplianceScore(asThen)
}
