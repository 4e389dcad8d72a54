// /api/compliance/alerts: list, read, acknowledge, resolve.
import { z } from 'zod'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { Alerts } from '../store/records.ts'
import { SEVERITIES } from '../logic/verdict/types.ts'
import { alertAnswer, pageOf } from './answers.ts'
import { pageFields, pageQueryOf, parseQuery, PROJECT_KEYS } from './list-query.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const ALERT_TYPES = ['high_risk_request', 'blocked_request', 'sensitive_output', 'withheld_output', 'blocked_output'] as const
const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const

const listQuery = z.strictObject({
  ...pageFields,
  status: oneOf('status', ALERT_STATUSES).optional(),
  type: oneOf('type', ALERT_TYPES).optional(),
  severity: oneOf('severity', SEVERITIES).optional(),
})

export function alertRoutes(alerts: Alerts): ProjectRouteSpec[] {
  const keyTypes = PROJECT_KEYS
  return [
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/compliance/alerts',
      name: 'compliance_alerts',
      docs: { query: listQuery, response: pageOf(alertAnswer) },
      async handle(ctx, project) {
        const query = parseQuery(listQuery, ctx)
        return Reply.json(await alerts.list(project.id, pageQueryOf(query, 'alert'), query))
      },
    },
    {
      keyTypes,
      writes: false,
      method: 'GET',
      path: '/compliance/alerts/:id',
      name: 'compliance_alert',
      docs: { response: alertAnswer },
      handle: async (ctx, project) => Reply.json(await alerts.get(project.id, ctx.params.id!)),
    },
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path: '/compliance/alerts/:id/acknowledge',
      name: 'compliance_alert_acknowledge',
      docs: { response: alertAnswer, errors: [409] },
      handle: async (ctx, project) => Reply.json(await alerts.acknowledge(project.id, ctx.params.id!)),
    },
    {
      keyTypes,
      writes: true,
      method: 'POST',
      path: '/compliance/alerts/:id/resolve',
      name: 'compliance_alert_resolve',
      docs: { response: alertAnswer, errors: [409] },
      handle: async (ctx, project) => Reply.json(await alerts.resolve(project.id, ctx.params.id!)),
    },
  ]
}
