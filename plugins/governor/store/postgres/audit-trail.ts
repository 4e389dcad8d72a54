// Appends audit records to a project's hash chain in PostgreSQL, shared by every gateway. The
// record, its violations, its alert, a model's first registration, the open-violation counts and
// their events commit in one transaction. The chain's head row is locked by an upsert before the
// record is chained to it, so appends for one project are serialized across gateways, and the
// (project, seq) primary key refuses a second record at a place whatever happens.
// Rows that need no project-wide lock are written first, so the lock is held for the fewest
// round trips; the locks are always taken in one order (a model's row, the counts, the head).
// A project's appends that arrive while one commits are chained together in the next.
import { batchedTurns } from '../../../../proxy/stores/batched-turns.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import { DependencyUnavailableError } from '../../../../proxy/pipeline/errors.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import { GENESIS_HASH, hashOfRecord } from '../../logic/audit/chain-hash.ts'
import { alertData, violationData } from '../../logic/event-data.ts'
import type { AuditChain, AuditEntry, AuditTrail } from '../records.ts'
import type { AuditDraft, AuditHead, AuditRecord } from '../types.ts'
import { insertAlert } from './alerts.ts'
import { insertModel } from './models-registry.ts'
import { countOpenViolations } from './open-counts.ts'
import { insertViolations } from './violations.ts'

/** The most appends of one project committed together. */
const MAX_BATCH = 64

export function postgresAuditTrail(database: PluginDatabase, events: SharedEventOutbox): AuditTrail {
  /** Chains the drafts, in order, to the project's head, locked once for all of them. */
  async function chain(sql: Sql, drafts: readonly AuditDraft[]): Promise<AuditRecord[]> {
    const projectId = drafts[0]!.projectId
    const locked = await sql.query<{ seq: string; hash: string }>(
      `INSERT INTO governor_audit_heads AS h (project_id, seq, id, hash) VALUES ($1, 0, '', $2)
       ON CONFLICT (project_id) DO UPDATE SET seq = h.seq RETURNING seq, hash`,
      [projectId, GENESIS_HASH],
    )
    let seq = Number(locked.rows[0]!.seq)
    let prevHash = locked.rows[0]!.hash
    const records = drafts.map((draft) => {
      const chained = { ...draft, seq: ++seq, prevHash }
      const record: AuditRecord = { ...chained, hash: hashOfRecord(chained) }
      prevHash = record.hash
      return record
    })
    const last = records.at(-1)!
    await sql.query(
      `WITH head AS (UPDATE governor_audit_heads SET seq = $2, id = $3, hash = $4 WHERE project_id = $1)
       INSERT INTO governor_audit (project_id, seq, id, record)
       SELECT $1, r.seq, r.id, r.record FROM unnest($5::bigint[], $6::text[], $7::json[]) AS r(seq, id, record)`,
      [projectId, last.seq, last.id, last.hash, records.map((r) => r.seq), records.map((r) => r.id), records.map((r) => JSON.stringify(r))],
    )
    return records
  }

  // A project's appends in turns (proxy/stores/batched-turns.ts): its chain's head is one row, locked by
  // each append until its commit is on disk. The side rows come first and the head last, in the
  // order one append takes its locks (a model's row, the counts, the head).
  const appendInTurn = batchedTurns<AuditEntry, AuditRecord>(
    (batch) =>
      database.transaction(async (sql) => {
        for (const { violations, alert } of batch) {
          await insertViolations(sql, violations)
          if (alert !== undefined) await insertAlert(sql, alert)
        }
        for (const { model } of batch) if (model !== undefined) await insertModel(sql, model)
        for (const { draft, violations, alert } of batch) {
          for (const violation of violations) await events.emit(sql, 'violation.detected', violation.projectId, violationData(violation))
          await countOpenViolations(
            sql,
            events,
            draft.projectId,
            violations.map((v) => ({ severity: v.severity, delta: 1 as const })),
          )
          if (alert !== undefined) await events.emit(sql, 'alert.created', alert.projectId, alertData(alert))
        }
        return chain(
          sql,
          batch.map((entry) => entry.draft),
        )
      }),
    { maxBatch: MAX_BATCH, retryAlone: (err) => !(err instanceof DependencyUnavailableError) },
  )

  return {
    append: (entry) => appendInTurn(entry.draft.projectId, entry),
    async get(projectId, auditId) {
      const found = await database.query<{ record: AuditRecord }>('SELECT record FROM governor_audit WHERE id = $1 AND project_id = $2', [auditId, projectId])
      return found.rows[0]?.record
    },
  }
}

export function postgresAuditChain(database: Sql): AuditChain {
  return {
    async links(projectId, afterSeq, throughSeq, limit) {
      const found = await database.query<{ seq: string; record: unknown }>(
        'SELECT seq, record FROM governor_audit WHERE project_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4',
        [projectId, afterSeq, throughSeq, limit],
      )
      return found.rows.map((row) => ({ seq: Number(row.seq), value: row.record }))
    },
    async head(projectId) {
      const found = await database.query<{ seq: string; id: string; hash: string }>('SELECT seq, id, hash FROM governor_audit_heads WHERE project_id = $1', [
        projectId,
      ])
      const head = found.rows[0]
      return head === undefined ? undefined : ({ seq: Number(head.seq), id: head.id, hash: head.hash } satisfies AuditHead)
    },
  }
}
