// The checks of a change to an organization's members, the same whichever store holds them.
// Admins manage admins and members; only owners touch owners, and the last owner can neither be
// demoted nor removed. An account joins an organization only while it belongs to none.
import { ConflictError, NotFoundError } from '../../../proxy/pipeline/errors.ts'
import { UnauthorizedError } from '../errors.ts'
import type { Member } from './member.ts'
import type { Membership } from '../store/organizations.ts'
import { requireRole, type Role } from './roles.ts'
import type { User } from '../store/users.ts'

/** The target membership, once the member's right to change it is checked; `newRole` undefined: a removal. */
export function checkMemberChange(
  member: Member,
  userId: string,
  target: Membership | undefined,
  newRole: Role | undefined,
  ownerCount: () => number,
): Membership {
  requireRole(member.role, 'admin')
  if (target === undefined) throw new NotFoundError(`No member ${userId} in this organization.`)
  if (target.role === 'owner' || newRole === 'owner') requireRole(member.role, 'owner')
  if (target.role === 'owner' && newRole !== 'owner' && ownerCount() === 1) {
    throw new ConflictError('The organization needs at least one owner; make another member owner first.')
  }
  return target
}

/** Checked before an invitation is taken, so it still works once the account is free to join. */
export function checkJoin(existing: User | undefined, organizationId: string): void {
  if (existing?.organizationId == null) return
  if (existing.organizationId === organizationId) throw new ConflictError('This account is already a member of the organization.')
  throw memberElsewhere()
}

export const memberElsewhere = () => new ConflictError('This account belongs to another organization; it must leave it first.')

export const countOwners = (members: readonly Membership[]) => members.filter((m) => m.role === 'owner').length

export const invalidInvitation = () => new UnauthorizedError('The invitation is invalid, expired or already used.')
