// An organization's members: list, change a role, remove (the rules are in logic/membership-rules.ts).
import { z } from 'zod'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { actorOf, memberRoute } from './member-route.ts'
import type { Membership } from '../store/organizations.ts'
import { ROLES } from '../logic/roles.ts'
import type { AccountServices } from '../services.ts'
import { memberAnswer } from './answers.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const roleBody = z.strictObject({ role: oneOf('role', ROLES) })

export function memberRoutes(services: AccountServices): RouteSpec[] {
  const { users, organizations, changes, audit } = services
  const view = async (m: Membership) => ({ userId: m.userId, email: (await users.byId(m.userId))?.email ?? null, role: m.role, joinedAt: m.joinedAt })

  return [
    memberRoute(services, {
      method: 'GET',
      path: '/api/orgs/me/members',
      name: 'org_members',
      docs: { response: z.object({ members: z.array(memberAnswer) }) },
      async handle(_ctx, member) {
        return Reply.json({ members: await Promise.all((await organizations.members(member.organization.id)).map(view)) })
      },
    }),
    memberRoute(services, {
      method: 'PATCH',
      path: '/api/orgs/me/members/:userId',
      name: 'org_member_update',
      body: roleBody,
      docs: { response: memberAnswer, errors: [409] },
      async handle(ctx, member, body) {
        const userId = ctx.params.userId!
        const { before, after } = await changes.changeRole(member, userId, body.role)
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: 'member.role_change',
          target: { type: 'member', id: userId },
          details: { from: before.role, to: after.role },
        })
        return Reply.json(await view(after))
      },
    }),
    memberRoute(services, {
      method: 'DELETE',
      path: '/api/orgs/me/members/:userId',
      name: 'org_member_remove',
      docs: { response: z.object({ userId: z.string(), removed: z.literal(true) }), errors: [409] },
      async handle(ctx, member) {
        const userId = ctx.params.userId!
        const removed = await changes.removeMember(member, userId)
        await audit.record(member.organization.id, {
          actor: actorOf(member),
          action: 'member.remove',
          target: { type: 'member', id: userId },
          details: { role: removed.role },
        })
        return Reply.json({ userId, removed: true })
      },
    }),
  ]
}
