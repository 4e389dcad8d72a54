// A project's compliance score: 100 less the weight of the violations still open, never below 0;
// over those found in a period, now or as it stood at an earlier time (the score routes), and over
// the running counts of every open violation that compliance.score_changed announces (the stores
// keep them). Pure; the routes and the stores read the violations.
import type { Severity } from './verdict/types.ts'
import type { Violation } from '../store/types.ts'

export const SEVERITY_WEIGHTS: Readonly<Record<Severity, number>> = { LOW: 1, MEDIUM: 3, HIGH: 8, CRITICAL: 20 }

export type OpenCounts = Readonly<Record<Severity, number>>
export type CountChange = { readonly severity: Severity; readonly delta: 1 | -1 }

export const NO_OPEN_VIOLATIONS: OpenCounts = { LOW: 0, MEDIUM: 0, HIGH: 0, CRITICAL: 0 }

export function scoreOfOpenCounts(open: OpenCounts): number {
  return Math.max(0, 100 - (Object.keys(open) as Severity[]).reduce((sum, severity) => sum + open[severity] * SEVERITY_WEIGHTS[severity], 0))
}

interface ComplianceScore {
  readonly score: number
  readonly openViolations: Readonly<Record<Severity, number>>
  readonly totalViolations: number
}

export function computeComplianceScore(violations: Iterable<Pick<Violation, 'severity' | 'status'>>): ComplianceScore {
  const open: Record<Severity, number> = { ...NO_OPEN_VIOLATIONS }
  let total = 0
  for (const violation of violations) {
    total++
    if (violation.status === 'open') open[violation.severity]++
  }
  return { score: scoreOfOpenCounts(open), openViolations: open, totalViolations: total }
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

/** The counts after the changes, and the data of compliance.score_changed when the score moved. */
export function applyCountChanges(
  before: OpenCounts,
  changes: readonly CountChange[],
): { after: OpenCounts; scoreChanged: Record<string, unknown> | undefined } {
  const after: Record<Severity, number> = { ...NO_OPEN_VIOLATIONS, ...before }
  for (const { severity, delta } of changes) after[severity] = Math.max(0, after[severity] + delta)
  const previous = scoreOfOpenCounts(before)
  const score = scoreOfOpenCounts(after)
  return { after, scoreChanged: score === previous ? undefined : { previous_score: previous, score, open_violations: after } }
}
