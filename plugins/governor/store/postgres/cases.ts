// Cases in PostgreSQL: a compliance officer's investigation of one or more violations, with notes.
// Resolving a case resolves its violations that are still open, in the same transaction, which
// emits every change's event to the shared outbox.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import { caseData, violationData } from '../../logic/event-data.ts'
import type { CaseChanges, Cases } from '../records.ts'
import type { NewId } from '../../ids.ts'
import { assertTransition, CASE_TRANSITIONS } from '../../logic/transitions.ts'
import type { Case, Violation } from '../types.ts'
import { countOpenViolations } from './open-counts.ts'
import { pageOfRows } from './page.ts'
import { lockViolations, saveViolation } from './violations.ts'
import { newCase, unknownViolation } from '../../logic/record-changes.ts'
import { recordFinder } from './find-record.ts'

export function postgresCases(database: PluginDatabase, events: SharedEventOutbox, clock: Clock, newId: NewId): Cases {
  const find = recordFinder<Case>('governor_cases', 'case')
  const iso = () => new Date(clock.now()).toISOString()

  /** Inside a transaction that locked the case: the case after the change, with its open violations resolved when it is resolved. */
  async function change(sql: Sql, current: Case, changes: CaseChanges): Promise<Case> {
    const at = iso()
    let next: Case = { ...current, updatedAt: at }
    if (changes.status !== undefined && changes.status !== current.status) {
      assertTransition('case', current.id, current.status, changes.status, CASE_TRANSITIONS)
      next = { ...next, status: changes.status, resolvedAt: changes.status === 'resolved' ? at : null }
      if (changes.status === 'resolved') await resolveViolations(sql, next, at)
    }
    if (changes.note !== undefined) next = { ...next, notes: [...next.notes, { at, text: changes.note }] }
    await sql.query('UPDATE governor_cases SET status = $3, record = $4 WHERE project_id = $1 AND id = $2', [
      next.projectId,
      next.id,
      next.status,
      JSON.stringify(next),
    ])
    await events.emit(sql, next.status === 'resolved' && current.status !== 'resolved' ? 'case.resolved' : 'case.updated', next.projectId, caseData(next))
    return next
  }

  async function resolveViolations(sql: Sql, resolved: Case, at: string): Promise<void> {
    const closedSeverities: Array<{ severity: Violation['severity']; delta: -1 }> = []
    const byId = new Map((await lockViolations(sql, resolved.projectId, resolved.violationIds)).map((v) => [v.id, v]))
    for (const violationId of resolved.violationIds) {
      const violation = byId.get(violationId)
      if (violation === undefined || violation.status !== 'open') continue
      const closed: Violation = { ...violation, status: 'resolved', resolvedAt: at, caseId: resolved.id }
      await saveViolation(sql, closed)
      await events.emit(sql, 'violation.resolved', resolved.projectId, violationData(closed))
      closedSeverities.push({ severity: closed.severity, delta: -1 })
    }
    await countOpenViolations(sql, events, resolved.projectId, closedSeverities)
  }

  return {
    create(projectId, input) {
      return database.transaction(async (sql) => {
        const ids = [...new Set(input.violationIds)]
        const found = await sql.query<{ record: Violation }>('SELECT record FROM governor_violations WHERE project_id = $1 AND id = ANY($2)', [projectId, ids])
        const byId = new Map(found.rows.map((row) => [row.record.id, row.record]))
        const violations = ids.map((violationId) => {
          const violation = byId.get(violationId)
          if (violation === undefined) {
            throw unknownViolation(violationId)
          }
          return violation
        })
        const at = iso()
        const created = newCase(newId('case'), projectId, input, violations, at)
        await sql.query('INSERT INTO governor_cases (project_id, id, status, severity, record) VALUES ($1, $2, $3, $4, $5)', [
          projectId,
          created.id,
          created.status,
          created.severity,
          JSON.stringify(created),
        ])
        await events.emit(sql, 'case.created', projectId, caseData(created))
        return created
      })
    },
    list: (projectId, query, filter) =>
      pageOfRows<Case>(database, 'governor_cases', projectId, 'case', query, { status: filter.status, severity: filter.severity }),
    get: (projectId, id) => find(database, projectId, id, false),
    update(projectId, id, changes) {
      return database.transaction(async (sql) => change(sql, await find(sql, projectId, id, true), changes))
    },
    resolve(projectId, id) {
      return database.transaction(async (sql) => {
        const current = await find(sql, projectId, id, true)
        assertTransition('case', id, current.status, 'resolved', CASE_TRANSITIONS)
        return change(sql, current, { status: 'resolved' })
      })
    },
  }
}
