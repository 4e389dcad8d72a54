// compliance.score_changed: the project's score over its open violations (of any age) is kept as
// running counts per severity, updated in every transaction that opens or resolves violations,
// and announced with its previous value when it moves. Counts, not a scan: the cost of a governed
// request must not grow with the violations already on record. The event fires once per change
// however many processes share the store, since the counts live in it.
import type { EventOutbox } from '../../../proxy/events.ts'
import type { Severity } from '../verdict/types.ts'
import { SEVERITY_WEIGHTS } from './compliance-score.ts'
import type { GovernorDatabases } from './databases.ts'

export type OpenCounts = Readonly<Record<Severity, number>>

const NONE: OpenCounts = { LOW: 0, MEDIUM: 0, HIGH: 0, CRITICAL: 0 }

const scoreOf = (open: OpenCounts) =>
  Math.max(0, 100 - (Object.keys(open) as Severity[]).reduce((sum, severity) => sum + open[severity] * SEVERITY_WEIGHTS[severity], 0))

/** Call inside the transaction that opened (+1) or resolved (-1) violations of these severities. */
export function countOpenViolations(dbs: GovernorDatabases, events: EventOutbox, projectId: string, changes: ReadonlyArray<{ severity: Severity; delta: 1 | -1 }>): void {
  if (changes.length === 0) return
  const before = dbs.openCounts.get(projectId) ?? NONE
  const after: Record<Severity, number> = { ...before }
  for (const { severity, delta } of changes) after[severity] = Math.max(0, after[severity] + delta)
  dbs.openCounts.put(projectId, after)
  const previous = scoreOf(before)
  const score = scoreOf(after)
  if (score !== previous) events.emit('compliance.score_changed', projectId, { previous_score: previous, score, open_violations: after })
}
