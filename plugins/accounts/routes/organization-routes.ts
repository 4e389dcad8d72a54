// The caller's own organization and its admin audit log.
import { z } from 'zod'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { validate } from '../../../proxy/http/validate.ts'
import { actorOf, memberRoute } from './member-route.ts'
import { requireRole } from '../logic/roles.ts'
import type { AccountServices } from '../services.ts'
import { auditLogAnswer, organizationAnswer } from './answers.ts'
import { nameField } from './fields.ts'

const organizationBody = z.strictObject({
  name: nameField('name'),
})
const auditQuery = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be from 1 to 1000')
    .max(1000, 'limit must be from 1 to 1000')
    .default(100),
})

export function organizationRoutes(services: AccountServices): RouteSpec[] {
  const { organizations, audit } = services
  return [
    memberRoute(services, {
      method: 'GET',
      path: '/api/orgs/me',
      name: 'org_get',
      docs: { response: organizationAnswer },
      async handle(_ctx, member) {
        return Reply.json({ ...member.organization, role: member.role })
      },
    }),
    memberRoute(services, {
      method: 'PATCH',
      path: '/api/orgs/me',
      name: 'org_update',
      body: organizationBody,
      docs: { response: organizationAnswer },
      async handle(_ctx, member, body) {
        requireRole(member.role, 'admin')
        const renamed = await organizations.rename(member.organization.id, body.name)
        await audit.record(renamed.id, {
          actor: actorOf(member),
          action: 'organization.rename',
          target: { type: 'organization', id: renamed.id },
          details: { from: member.organization.name, to: renamed.name },
        })
        return Reply.json({ ...renamed, role: member.role })
      },
    }),
    memberRoute(services, {
      method: 'GET',
      path: '/api/orgs/me/audit-log',
      name: 'org_audit_log',
      docs: { query: auditQuery, response: auditLogAnswer },
      async handle(ctx, member) {
        requireRole(member.role, 'owner')
        const { limit } = validate(auditQuery, Object.fromEntries(ctx.query), 'query')
        return Reply.json({ entries: await audit.list(member.organization.id, limit) })
      },
    }),
  ]
}
