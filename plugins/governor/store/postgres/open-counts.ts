// The open-violation counts of a project in PostgreSQL (store/lmdb/open-counts.ts says why counts),
// changed in the transaction that opens or resolves violations, with compliance.score_changed
// emitted to the shared outbox in it when the score moves.
import type { Sql } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import { applyCountChanges, NO_OPEN_VIOLATIONS, type CountChange, type OpenCounts } from '../../logic/compliance-score.ts'

export async function countOpenViolations(sql: Sql, events: SharedEventOutbox, projectId: string, changes: readonly CountChange[]): Promise<void> {
  if (changes.length === 0) return
  // The upsert locks the project's row, waiting for another gateway's transaction on it, and
  // answers its latest counts: gateways change them one after another, none from a stale read.
  const locked = await sql.query<{ counts: OpenCounts }>(
    `INSERT INTO governor_open_counts AS c (project_id, counts) VALUES ($1, $2)
     ON CONFLICT (project_id) DO UPDATE SET counts = c.counts RETURNING counts`,
    [projectId, JSON.stringify(NO_OPEN_VIOLATIONS)],
  )
  const { after, scoreChanged } = applyCountChanges(locked.rows[0]!.counts, changes)
  await sql.query('UPDATE governor_open_counts SET counts = $2 WHERE project_id = $1', [projectId, JSON.stringify(after)])
  if (scoreChanged !== undefined) await events.emit(sql, 'compliance.score_changed', projectId, scoreChanged)
}
