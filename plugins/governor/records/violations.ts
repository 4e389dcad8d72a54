// Violations: listed, read and resolved by a compliance officer (or through a case).
import type { Clock } from '../../../proxy/clock.ts'
import { NotFoundError } from '../../../proxy/errors.ts'
import type { EventOutbox } from '../../../proxy/events.ts'
import type { PluginStore } from '../../../proxy/store.ts'
import type { Severity, ViolationType } from '../verdict/types.ts'
import type { GovernorDatabases } from './databases.ts'
import { violationData } from './event-data.ts'
import { ID_PREFIXES, idAtTime } from './ids.ts'
import { pageOf, type Page, type PageQuery } from './page.ts'
import { countOpenViolations } from './score-watch.ts'
import { assertTransition, VIOLATION_TRANSITIONS } from './transitions.ts'
import type { Violation, ViolationStatus } from './types.ts'

export interface ViolationFilter {
  readonly status?: ViolationStatus | undefined
  readonly type?: ViolationType | undefined
  readonly severity?: Severity | undefined
}

export function createViolations(store: PluginStore, dbs: GovernorDatabases, clock: Clock, events: EventOutbox) {
  const find = (projectId: string, id: string): Violation => {
    const violation = dbs.violations.get([projectId, id])
    if (violation === undefined) throw new NotFoundError(`No violation ${id} in this project.`)
    return violation
  }
  return {
    list(projectId: string, query: PageQuery, filter: ViolationFilter): Page<Violation> {
      return pageOf(dbs.violations, projectId, 'violation', query, (v) =>
        (filter.status === undefined || v.status === filter.status)
        && (filter.type === undefined || v.type === filter.type)
        && (filter.severity === undefined || v.severity === filter.severity))
    },
    get: find,
    /** Every violation found from `since` on (epoch milliseconds), oldest first. */
    since(projectId: string, since: number): Iterable<Violation> {
      return dbs.violations.getRange({ start: [projectId, idAtTime('violation', since)], end: [projectId, `${ID_PREFIXES.violation}~`] }).map(({ value }) => value)
    },
    resolve(projectId: string, id: string): Promise<Violation> {
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

export type Violations = ReturnType<typeof createViolations>
