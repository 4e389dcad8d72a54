// /api/compliance/alerts: list, read, acknowledge, resolve.
import { z } from 'zod'
import type { RouteSpec } from '../../../proxy/plugin.ts'
import { Reply } from '../../../proxy/reply.ts'
import type { Alerts } from '../records/alerts.ts'
import { SEVERITIES } from '../verdict/types.ts'
import { pageFields, pageQueryOf, parseQuery, PROJECT_KEYS, projectIdOf } from './list-query.ts'

const ALERT_TYPES = ['high_risk_request', 'blocked_request', 'sensitive_output', 'withheld_output', 'blocked_output'] as const
const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const

const listQuery = z.strictObject({
  ...pageFields,
  status: z.enum(ALERT_STATUSES, { error: `status must be one of ${ALERT_STATUSES.join(', ')}` }).optional(),
  type: z.enum(ALERT_TYPES, { error: `type must be one of ${ALERT_TYPES.join(', ')}` }).optional(),
  severity: z.enum(SEVERITIES, { error: `severity must be one of ${SEVERITIES.join(', ')}` }).optional(),
})

export function alertRoutes(alerts: Alerts): RouteSpec[] {
  return [
    {
      method: 'GET', path: '/api/compliance/alerts', name: 'compliance_alerts', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle(ctx) {
        const query = parseQuery(listQuery, ctx)
        return Reply.json(alerts.list(projectIdOf(ctx), pageQueryOf(query, 'alert'), query))
      },
    },
    {
      method: 'GET', path: '/api/compliance/alerts/:id', name: 'compliance_alert', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: (ctx) => Reply.json(alerts.get(projectIdOf(ctx), ctx.params.id!)),
    },
    {
      method: 'POST', path: '/api/compliance/alerts/:id/acknowledge', name: 'compliance_alert_acknowledge', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: async (ctx) => Reply.json(await alerts.acknowledge(projectIdOf(ctx), ctx.params.id!)),
    },
    {
      method: 'POST', path: '/api/compliance/alerts/:id/resolve', name: 'compliance_alert_resolve', kind: 'keyed', keyTypes: PROJECT_KEYS,
      handle: async (ctx) => Reply.json(await alerts.resolve(projectIdOf(ctx), ctx.params.id!)),
    },
  ]
}
