// compliance.score_changed: the project's score over its open violations (of any age) is kept as
// running counts per severity, updated in every transaction that opens or resolves violations,
// and announced with its previous value when it moves. Counts, not a scan: the cost of a governed
// request must not grow with the violations already on record. The event fires once per change
// however many processes share the store, since the counts live in it.
import type { EventOutbox } from '../../../../proxy/stores/events.ts'
import type { Severity } from '../../logic/verdict/types.ts'
import { SEVERITY_WEIGHTS } from '../../logic/compliance-score.ts'
import type { GovernorDatabases } from './databases.ts'

export type OpenCounts = Readonly<Record<Severity, number>>
export type CountChange = { readonly severity: Severity; readonly delta: 1 | -1 }

export const NO_OPEN_VIOLATIONS: OpenCounts = { LOW: 0, MEDIUM: 0, HIGH: 0, CRITICAL: 0 }

const scoreOf = (open: OpenCounts) =>
  Math.max(0, 100 - (Object.keys(open) as Severity[]).reduce((sum, severity) => sum + open[severity] * SEVERITY_WEIGHTS[severity], 0))

/** The counts after the changes, and the data of compliance.score_changed when the score moved. */
export function applyCountChanges(before: OpenCounts, changes: readonly CountChange[]): { after: OpenCounts; scoreChanged: Record<string, unknown> | undefined } {
  const after: Record<Severity, number> = { ...NO_OPEN_VIOLATIONS, ...before }
  for (const { severity, delta } of changes) after[severity] = Math.max(0, after[severity] + delta)
  const previous = scoreOf(before)
  const score = scoreOf(after)
  return { after, scoreChanged: score === previous ? undefined : { previous_score: previous, score, open_violations: after } }
}

/** Call inside the transaction that opened (+1) or resolved (-1) violations of these severities. */
export function countOpenViolations(dbs: GovernorDatabases, events: EventOutbox, projectId: string, changes: readonly CountChange[]): void {
  if (changes.length === 0) return
  const { after, scoreChanged } = applyCountChanges(dbs.openCounts.get(projectId) ?? NO_OPEN_VIOLATIONS, changes)
  dbs.openCounts.put(projectId, after)
  if (scoreChanged !== undefined) events.emit('compliance.score_changed', projectId, scoreChanged)
}
