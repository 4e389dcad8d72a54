// Violations in LMDB: listed, read and resolved by a compliance officer (or through a case).
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { NotFoundError } from '../../../../proxy/pipeline/errors.ts'
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { GovernorDatabases } from './databases.ts'
import { violationData } from '../../logic/event-data.ts'
import type { Violations } from '../records.ts'
import { ID_PREFIXES, idAtTime } from '../../ids.ts'
import { pageOf } from '../page.ts'
import { countOpenViolations } from './open-counts.ts'
import { assertTransition, VIOLATION_TRANSITIONS } from '../../logic/transitions.ts'
import type { Violation } from '../types.ts'

export function createViolations(store: PluginStore, dbs: GovernorDatabases, clock: Clock, events: EventOutbox): Violations {
  const find = (projectId: string, id: string): Violation => {
    const violation = dbs.violations.get([projectId, id])
    if (violation === undefined) throw new NotFoundError(`No violation ${id} in this project.`)
    return violation
  }
  return {
    async list(projectId, query, filter) {
      return pageOf(
        dbs.violations,
        projectId,
        'violation',
        query,
        (v) =>
          (filter.status === undefined || v.status === filter.status) &&
          (filter.type === undefined || v.type === filter.type) &&
          (filter.severity === undefined || v.severity === filter.severity),
      )
    },
    get: async (projectId, id) => find(projectId, id),
    async since(projectId, since) {
      return [...dbs.violations.getRange({ start: [projectId, idAtTime('violation', since)], end: [projectId, `${ID_PREFIXES.violation}~`] })].map(
        ({ value }) => value,
      )
    },
    resolve(projectId, id) {
      return store.transaction(() => {
        const violation = find(projectId, id)
        assertTransition('violation', id, violation.status, 'resolved', VIOLATION_TRANSITIONS)
        const resolved: Violation = { ...violation, status: 'resolved', resolvedAt: new Date(clock.now()).toISOString() }
        dbs.violations.put([projectId, id], resolved)
        events.emit('violation.resolved', projectId, violationData(resolved))
        countOpenViolations(dbs, events, projectId, [{ severity: resolved.severity, delta: -1 }])
        return resolved
      })
    },
  }
}
