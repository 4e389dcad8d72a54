// The open-violation counts of a project in LMDB, the score compliance.score_changed announces:
// running counts per severity, updated in every transaction that opens or resolves violations.
// Counts, not a scan: the cost of a governed request must not grow with the violations already on
// record. The event fires once per change however many processes share the store, since the
// counts live in it.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import { applyCountChanges, NO_OPEN_VIOLATIONS, type CountChange } from '../../logic/compliance-score.ts'
import type { GovernorDatabases } from './databases.ts'

/** Call inside the transaction that opened (+1) or resolved (-1) violations of these severities. */
export function countOpenViolations(dbs: GovernorDatabases, events: EventOutbox, projectId: string, changes: readonly CountChange[]): void {
  if (changes.length === 0) return
  const { after, scoreChanged } = applyCountChanges(dbs.openCounts.get(projectId) ?? NO_OPEN_VIOLATIONS, changes)
  dbs.openCounts.put(projectId, after)
  if (scoreChanged !== undefined) events.emit('compliance.score_changed', projectId, scoreChanged)
}
