// Roles inside an organization: owners manage everything, admins manage projects, keys and
// members, members only read.
import { ForbiddenError } from '../errors.ts'

export const ROLES = ['owner', 'admin', 'member'] as const
export type Role = (typeof ROLES)[number]

const RANK: Readonly<Record<Role, number>> = { member: 0, admin: 1, owner: 2 }

export function requireRole(role: Role, least: Role): void {
  if (RANK[role] < RANK[least]) throw new ForbiddenError(`This needs the ${least} role or higher; you are ${role === 'admin' ? 'an' : 'a'} ${role}.`)
}
