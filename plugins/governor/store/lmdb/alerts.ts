// Alerts in LMDB: raised with the audit record of a high-risk request or a sensitive answer, then
// acknowledged and resolved by a compliance officer.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { NotFoundError } from '../../../../proxy/pipeline/errors.ts'
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { GovernorDatabases } from './databases.ts'
import { alertData } from '../../logic/event-data.ts'
import type { Alerts } from '../records.ts'
import { pageOf } from '../page.ts'
import { ALERT_TRANSITIONS, assertTransition } from '../../logic/transitions.ts'
import type { Alert } from '../types.ts'

export function createAlerts(store: PluginStore, dbs: GovernorDatabases, clock: Clock, events: EventOutbox): Alerts {
  const find = (projectId: string, id: string): Alert => {
    const alert = dbs.alerts.get([projectId, id])
    if (alert === undefined) throw new NotFoundError(`No alert ${id} in this project.`)
    return alert
  }
  function move(projectId: string, id: string, to: 'acknowledged' | 'resolved'): Promise<Alert> {
    return store.transaction(() => {
      const alert = find(projectId, id)
      assertTransition('alert', id, alert.status, to, ALERT_TRANSITIONS)
      const at = new Date(clock.now()).toISOString()
      const next: Alert = to === 'acknowledged' ? { ...alert, status: to, acknowledgedAt: at } : { ...alert, status: to, resolvedAt: at }
      dbs.alerts.put([projectId, id], next)
      events.emit(to === 'acknowledged' ? 'alert.acknowledged' : 'alert.resolved', projectId, alertData(next))
      return next
    })
  }
  return {
    async list(projectId, query, filter) {
      return pageOf(
        dbs.alerts,
        projectId,
        'alert',
        query,
        (a) =>
          (filter.status === undefined || a.status === filter.status) &&
          (filter.type === undefined || a.type === filter.type) &&
          (filter.severity === undefined || a.severity === filter.severity),
      )
    },
    get: async (projectId, id) => find(projectId, id),
    acknowledge: (projectId, id) => move(projectId, id, 'acknowledged'),
    resolve: (projectId, id) => move(projectId, id, 'resolved'),
  }
}
