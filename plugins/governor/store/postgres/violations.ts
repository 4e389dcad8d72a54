// Violations in PostgreSQL: listed, read and resolved by a compliance officer (or through a case).
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import { violationData } from '../../logic/event-data.ts'
import type { Violations } from '../records.ts'
import { ID_PREFIXES, idAtTime } from '../../ids.ts'
import { assertTransition, VIOLATION_TRANSITIONS } from '../../logic/transitions.ts'
import type { Violation } from '../types.ts'
import { countOpenViolations } from './open-counts.ts'
import { pageOfRows } from './page.ts'
import { recordFinder } from './find-record.ts'

export async function insertViolations(sql: Sql, violations: readonly Violation[]): Promise<void> {
  if (violations.length === 0) return
  await sql.query(
    `INSERT INTO governor_violations (project_id, id, status, type, severity, record)
     SELECT v->>'projectId', v->>'id', v->>'status', v->>'type', v->>'severity', v FROM json_array_elements($1::json) AS v`,
    [JSON.stringify(violations)],
  )
}

export async function saveViolation(sql: Sql, violation: Violation): Promise<void> {
  await sql.query('UPDATE governor_violations SET status = $3, record = $4 WHERE project_id = $1 AND id = $2', [
    violation.projectId,
    violation.id,
    violation.status,
    JSON.stringify(violation),
  ])
}

/** The project's violations of these ids, locked for the transaction `sql` belongs to; in id order, so two transactions lock them in one order. */
export async function lockViolations(sql: Sql, projectId: string, ids: readonly string[]): Promise<Violation[]> {
  const found = await sql.query<{ record: Violation }>('SELECT record FROM governor_violations WHERE project_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE', [
    projectId,
    ids,
  ])
  return found.rows.map((row) => row.record)
}

export function postgresViolations(database: PluginDatabase, events: SharedEventOutbox, clock: Clock): Violations {
  const find = recordFinder<Violation>('governor_violations', 'violation')
  return {
    list: (projectId, query, filter) =>
      pageOfRows<Violation>(database, 'governor_violations', projectId, 'violation', query, {
        status: filter.status,
        type: filter.type,
        severity: filter.severity,
      }),
    get: (projectId, id) => find(database, projectId, id, false),
    async since(projectId, since) {
      const found = await database.query<{ record: Violation }>(
        'SELECT record FROM governor_violations WHERE project_id = $1 AND id >= $2 AND id < $3 ORDER BY id',
        [projectId, idAtTime('violation', since), `${ID_PREFIXES.violation}~`],
      )
      return found.rows.map((row) => row.record)
    },
    resolve(projectId, id) {
      return database.transaction(async (sql) => {
        const violation = await find(sql, projectId, id, true)
        assertTransition('violation', id, violation.status, 'resolved', VIOLATION_TRANSITIONS)
        const resolved: Violation = { ...violation, status: 'resolved', resolvedAt: new Date(clock.now()).toISOString() }
        await saveViolation(sql, resolved)
        await events.emit(sql, 'violation.resolved', projectId, violationData(resolved))
        await countOpenViolations(sql, events, projectId, [{ severity: resolved.severity, delta: -1 }])
        return resolved
      })
    },
  }
}
