// GET /api/compliance/audit/:auditId: one audit record of the key's project.
import { NotFoundError } from '../../../proxy/errors.ts'
import type { RouteSpec } from '../../../proxy/plugin.ts'
import { Reply } from '../../../proxy/reply.ts'
import type { AuditTrail } from '../audit/audit-trail.ts'
import { PROJECT_KEYS, projectIdOf } from './list-query.ts'

export function auditRoute(trail: AuditTrail): RouteSpec {
  return {
    method: 'GET', path: '/api/compliance/audit/:auditId', name: 'compliance_audit', kind: 'keyed', keyTypes: PROJECT_KEYS,
    handle(ctx) {
      const auditId = ctx.params.auditId!
      const record = trail.get(projectIdOf(ctx), auditId)
      if (record === undefined) throw new NotFoundError(`No audit record ${auditId} in this project.`)
      return Reply.json(record)
    },
  }
}
