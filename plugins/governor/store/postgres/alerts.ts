// Alerts in PostgreSQL: raised with an audit record (audit-trail.ts), then acknowledged and
// resolved by a compliance officer; each change emits its event to the shared outbox with it.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import { alertData } from '../../logic/event-data.ts'
import type { Alerts } from '../records.ts'
import { ALERT_TRANSITIONS, assertTransition } from '../../logic/transitions.ts'
import type { Alert } from '../types.ts'
import { pageOfRows } from './page.ts'
import { recordFinder } from './find-record.ts'

export async function insertAlert(sql: Sql, alert: Alert): Promise<void> {
  await sql.query('INSERT INTO governor_alerts (project_id, id, status, type, severity, record) VALUES ($1, $2, $3, $4, $5, $6)', [
    alert.projectId,
    alert.id,
    alert.status,
    alert.type,
    alert.severity,
    JSON.stringify(alert),
  ])
}

export function postgresAlerts(database: PluginDatabase, events: SharedEventOutbox, clock: Clock): Alerts {
  const find = recordFinder<Alert>('governor_alerts', 'alert')
  function move(projectId: string, id: string, to: 'acknowledged' | 'resolved'): Promise<Alert> {
    return database.transaction(async (sql) => {
      const alert = await find(sql, projectId, id, true)
      assertTransition('alert', id, alert.status, to, ALERT_TRANSITIONS)
      const at = new Date(clock.now()).toISOString()
      const next: Alert = to === 'acknowledged' ? { ...alert, status: to, acknowledgedAt: at } : { ...alert, status: to, resolvedAt: at }
      await sql.query('UPDATE governor_alerts SET status = $3, record = $4 WHERE project_id = $1 AND id = $2', [
        projectId,
        id,
        next.status,
        JSON.stringify(next),
      ])
      await events.emit(sql, to === 'acknowledged' ? 'alert.acknowledged' : 'alert.resolved', projectId, alertData(next))
      return next
    })
  }
  return {
    list: (projectId, query, filter) =>
      pageOfRows<Alert>(database, 'governor_alerts', projectId, 'alert', query, { status: filter.status, type: filter.type, severity: filter.severity }),
    get: (projectId, id) => find(database, projectId, id, false),
    acknowledge: (projectId, id) => move(projectId, id, 'acknowledged'),
    resolve: (projectId, id) => move(projectId, id, 'resolved'),
  }
}
