// Cases in LMDB: a compliance officer's investigation of one or more violations, with notes.
// Resolving a case resolves its violations that are still open.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { NotFoundError } from '../../../../proxy/pipeline/errors.ts'
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { GovernorDatabases } from './databases.ts'
import { caseData, violationData } from '../../logic/event-data.ts'
import type { CaseChanges, Cases } from '../records.ts'
import type { NewId } from '../../ids.ts'
import { pageOf } from '../page.ts'
import { countOpenViolations } from './open-counts.ts'
import { assertTransition, CASE_TRANSITIONS } from '../../logic/transitions.ts'
import type { Case, Violation } from '../types.ts'
import { newCase, unknownViolation } from '../../logic/record-changes.ts'

export function createCases(store: PluginStore, dbs: GovernorDatabases, clock: Clock, newId: NewId, events: EventOutbox): Cases {
  const find = (projectId: string, id: string): Case => {
    const found = dbs.cases.get([projectId, id])
    if (found === undefined) throw new NotFoundError(`No case ${id} in this project.`)
    return found
  }
  const iso = () => new Date(clock.now()).toISOString()

  /** Inside a transaction: the case after the change, with its open violations resolved when it is resolved. */
  function change(current: Case, changes: CaseChanges): Case {
    const at = iso()
    let next: Case = { ...current, updatedAt: at }
    if (changes.status !== undefined && changes.status !== current.status) {
      assertTransition('case', current.id, current.status, changes.status, CASE_TRANSITIONS)
      next = { ...next, status: changes.status, resolvedAt: changes.status === 'resolved' ? at : null }
      if (changes.status === 'resolved') resolveViolations(next, at)
    }
    if (changes.note !== undefined) next = { ...next, notes: [...next.notes, { at, text: changes.note }] }
    dbs.cases.put([current.projectId, current.id], next)
    events.emit(next.status === 'resolved' && current.status !== 'resolved' ? 'case.resolved' : 'case.updated', next.projectId, caseData(next))
    return next
  }

  function resolveViolations(resolved: Case, at: string): void {
    const closedSeverities: Array<{ severity: Violation['severity']; delta: -1 }> = []
    for (const violationId of resolved.violationIds) {
      const violation = dbs.violations.get([resolved.projectId, violationId])
      if (violation === undefined || violation.status !== 'open') continue
      const closed: Violation = { ...violation, status: 'resolved', resolvedAt: at, caseId: resolved.id }
      dbs.violations.put([resolved.projectId, violationId], closed)
      events.emit('violation.resolved', resolved.projectId, violationData(closed))
      closedSeverities.push({ severity: closed.severity, delta: -1 })
    }
    countOpenViolations(dbs, events, resolved.projectId, closedSeverities)
  }

  return {
    create(projectId, input) {
      return store.transaction(() => {
        const violations: Violation[] = []
        for (const violationId of new Set(input.violationIds)) {
          const violation = dbs.violations.get([projectId, violationId])
          if (violation === undefined) {
            throw unknownViolation(violationId)
          }
          violations.push(violation)
        }
        const at = iso()
        const created = newCase(newId('case'), projectId, input, violations, at)
        dbs.cases.put([projectId, created.id], created)
        events.emit('case.created', projectId, caseData(created))
        return created
      })
    },
    async list(projectId, query, filter) {
      return pageOf(
        dbs.cases,
        projectId,
        'case',
        query,
        (c) => (filter.status === undefined || c.status === filter.status) && (filter.severity === undefined || c.severity === filter.severity),
      )
    },
    get: async (projectId, id) => find(projectId, id),
    update(projectId, id, changes) {
      return store.transaction(() => change(find(projectId, id), changes))
    },
    resolve(projectId, id) {
      return store.transaction(() => {
        const current = find(projectId, id)
        assertTransition('case', id, current.status, 'resolved', CASE_TRANSITIONS)
        return change(current, { status: 'resolved' })
      })
    },
  }
}
