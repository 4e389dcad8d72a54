// Members' access to project routes (proxy/http/project-routes.ts): the bearer token's member, a
// project of their organization (another organization's is 404, like a missing one), a role
// that may make changes for routes that do (admin or owner), and each change in the audit log.
import type { ProjectAccess } from '../../../proxy/pipeline/plugin.ts'
import { authenticateMember } from './bearer.ts'
import { actorOf } from './member-route.ts'
import { ownProject } from './project-routes.ts'
import { requireRole } from '../logic/roles.ts'
import type { AccountServices } from '../services.ts'

export function createProjectAccess(services: AccountServices): ProjectAccess {
  return {
    async authorize(ctx, projectId, route) {
      const member = await authenticateMember(services, ctx.headers)
      const project = ownProject(services, member, projectId)
      if (route.writes) requireRole(member.role, 'admin')
      const { projectId: _, ...params } = ctx.params
      return {
        project,
        recordChange: () =>
          services.audit.record(member.organization.id, {
            actor: actorOf(member),
            action: route.name,
            target: { type: 'project', id: project.id },
            details: params,
          }),
      }
    },
  }
}
