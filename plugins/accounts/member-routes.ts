// An organization's members: list, change a role, remove. Admins manage admins and members;
// only owners touch owners, and the last owner can neither be demoted nor removed.
import { z } from 'zod'
import { ConflictError, NotFoundError } from '../../proxy/errors.ts'
import type { RouteSpec } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import type { Member } from './bearer.ts'
import { actorOf, memberRoute } from './member-route.ts'
import type { Membership } from './organizations.ts'
import { requireRole, ROLES } from './roles.ts'
import type { AccountServices } from './services.ts'
import { memberAnswer } from './answers.ts'

const roleBody = z.strictObject({ role: z.enum(ROLES, { error: `role must be one of ${ROLES.join(', ')}` }) })

export function memberRoutes(services: AccountServices): RouteSpec[] {
  const { store, users, organizations, refreshTokens, audit } = services
  const view = (m: Membership) => ({ userId: m.userId, email: users.byId(m.userId)?.email ?? null, role: m.role, joinedAt: m.joinedAt })

  /** Inside a transaction: the target membership, after the caller's right to change it is checked. */
  function targetOf(member: Member, userId: string, newRole: Membership['role'] | undefined): Membership {
    requireRole(member.role, 'admin')
    const target = organizations.membership(member.organization.id, userId)
    if (target === undefined) throw new NotFoundError(`No member ${userId} in this organization.`)
    if (target.role === 'owner' || newRole === 'owner') requireRole(member.role, 'owner')
    const losesOwner = target.role === 'owner' && newRole !== 'owner'
    if (losesOwner && organizations.members(member.organization.id).filter((m) => m.role === 'owner').length === 1) {
      throw new ConflictError('The organization needs at least one owner; make another member owner first.')
    }
    return target
  }

  return [
    memberRoute(services, {
      method: 'GET', path: '/api/orgs/me/members', name: 'org_members', docs: { response: z.object({ members: z.array(memberAnswer) }) },
      async handle(_ctx, member) {
        return Reply.json({ members: organizations.members(member.organization.id).map(view) })
      },
    }),
    memberRoute(services, {
      method: 'PATCH', path: '/api/orgs/me/members/:userId', name: 'org_member_update', body: roleBody, docs: { response: memberAnswer, errors: [409] },
      async handle(ctx, member, body) {
        const userId = ctx.params.userId!
        const { before, after } = await store.transaction(() => {
          const target = targetOf(member, userId, body.role)
          const next = { ...target, role: body.role }
          organizations.putMembership(next)
          return { before: target, after: next }
        })
        await audit.record(member.organization.id, {
          actor: actorOf(member), action: 'member.role_change', target: { type: 'member', id: userId }, details: { from: before.role, to: after.role },
        })
        return Reply.json(view(after))
      },
    }),
    memberRoute(services, {
      method: 'DELETE', path: '/api/orgs/me/members/:userId', name: 'org_member_remove', docs: { response: z.object({ userId: z.string(), removed: z.literal(true) }), errors: [409] },
      async handle(ctx, member) {
        const userId = ctx.params.userId!
        const removed = await store.transaction(() => {
          const target = targetOf(member, userId, undefined)
          organizations.removeMembership(member.organization.id, userId)
          users.update(userId, { organizationId: null })
          refreshTokens.revokeUser(userId)
          return target
        })
        await audit.record(member.organization.id, {
          actor: actorOf(member), action: 'member.remove', target: { type: 'member', id: userId }, details: { role: removed.role },
        })
        return Reply.json({ userId, removed: true })
      },
    }),
  ]
}
