// The changes across users, organizations, memberships and tokens in LMDB: each composes the
// synchronous records in one transaction.
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { checkJoin, checkMemberChange, countOwners, invalidInvitation } from '../../logic/membership-rules.ts'
import type { Role } from '../../logic/roles.ts'
import type { Member } from '../../logic/member.ts'
import type { Joined, MembershipChanges, SignUpOutcome } from '../membership-changes.ts'
import type { OneTimeTokenRecords } from './one-time-tokens.ts'
import type { OrganizationRecords } from './organizations.ts'
import type { LmdbRefreshTokens } from './refresh-tokens.ts'
import type { UserRecords } from './users.ts'

interface LmdbRecords {
  readonly users: UserRecords
  readonly organizations: OrganizationRecords
  readonly oneTimeTokens: OneTimeTokenRecords
  readonly refreshTokens: LmdbRefreshTokens
}

export function lmdbMembershipChanges(store: PluginStore, records: LmdbRecords): MembershipChanges {
  const { users, organizations, oneTimeTokens, refreshTokens } = records
  const targetOf = (member: Member, userId: string, newRole: Role | undefined) =>
    checkMemberChange(member, userId, organizations.membership(member.organization.id, userId), newRole, () =>
      countOwners(organizations.members(member.organization.id)),
    )

  return {
    signUp(input) {
      return store.transaction((): SignUpOutcome => {
        const existing = users.byEmail(input.email)
        if (existing !== undefined) return { existing }
        const organization = organizations.create(input.organizationName, input.createdAt)
        const user = users.create({
          email: input.email,
          passwordHash: input.passwordHash,
          verified: false,
          organizationId: organization.id,
          createdAt: input.createdAt,
        })!
        organizations.putMembership({ organizationId: organization.id, userId: user.id, role: 'owner', joinedAt: input.createdAt })
        return { created: user }
      })
    },
    verifyEmail(token, now) {
      return store.transaction(() => {
        const payload = oneTimeTokens.take('verify', token, now)
        const user = payload === undefined ? undefined : users.byId(payload.userId)
        // Once verified, older links of the same address are dead: none may reset the password.
        if (payload === undefined || user === undefined || user.verified) return false
        users.update(user.id, { verified: true, passwordHash: payload.passwordHash })
        return true
      })
    },
    acceptInvitation(token, now, passwordHash, joinedAt) {
      return store.transaction((): Joined => {
        const pending = oneTimeTokens.peek('invite', token, now)
        if (pending === undefined || organizations.get(pending.organizationId) === undefined) throw invalidInvitation()
        const existing = users.byEmail(pending.email)
        checkJoin(existing, pending.organizationId)
        const taken = oneTimeTokens.take('invite', token, now)!
        const user =
          existing === undefined
            ? users.create({ email: taken.email, passwordHash, verified: true, organizationId: taken.organizationId, createdAt: joinedAt })!
            : users.update(existing.id, { organizationId: taken.organizationId, verified: true, passwordHash: existing.passwordHash ?? passwordHash })
        organizations.putMembership({ organizationId: taken.organizationId, userId: user.id, role: taken.role, joinedAt })
        return { user, invitation: taken }
      })
    },
    changeRole(member, userId, role) {
      return store.transaction(() => {
        const before = targetOf(member, userId, role)
        const after = { ...before, role }
        organizations.putMembership(after)
        return { before, after }
      })
    },
    removeMember(member, userId) {
      return store.transaction(() => {
        const target = targetOf(member, userId, undefined)
        organizations.removeMembership(member.organization.id, userId)
        users.update(userId, { organizationId: null })
        refreshTokens.revokeUser(userId)
        return target
      })
    },
  }
}
