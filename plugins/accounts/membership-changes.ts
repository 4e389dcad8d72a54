// The changes that touch several kinds of record at once (users, organizations, memberships,
// tokens): each commits whole or not at all, in either store. The LMDB one composes the
// synchronous records in one transaction; the PostgreSQL one is in postgres-membership-changes.ts.
import type { PluginStore } from '../../proxy/stores/store.ts'
import type { Member } from './bearer.ts'
import { checkJoin, checkMemberChange, countOwners, invalidInvitation } from './membership-rules.ts'
import type { OneTimeTokenRecords, PayloadOf } from './one-time-tokens.ts'
import type { Membership, OrganizationRecords } from './organizations.ts'
import type { LmdbRefreshTokens } from './refresh-tokens.ts'
import type { Role } from './roles.ts'
import type { User, UserRecords } from './users.ts'

interface SignUpInput {
  readonly email: string
  readonly passwordHash: string
  readonly organizationName: string
  readonly createdAt: string
}

/** `existing`: the address has an account already, and nothing was made. */
export type SignUpOutcome = { readonly created: User; readonly existing?: undefined } | { readonly created?: undefined; readonly existing: User }

export interface Joined {
  readonly user: User
  readonly invitation: PayloadOf<'invite'>
}

export interface MembershipChanges {
  /** A new organization with the new user as its owner, unless the address has an account. */
  signUp(input: SignUpInput): Promise<SignUpOutcome>
  /** Takes the verification token and verifies its user with the token's password; false when it is invalid, used, or the user is verified already. */
  verifyEmail(token: string, now: number): Promise<boolean>
  /** Takes the invitation and makes its account, or brings one without an organization in; throws when it cannot. */
  acceptInvitation(token: string, now: number, passwordHash: string | null, joinedAt: string): Promise<Joined>
  changeRole(member: Member, userId: string, role: Role): Promise<{ before: Membership; after: Membership }>
  /** The removed member leaves the organization, and every session of theirs ends. */
  removeMember(member: Member, userId: string): Promise<Membership>
}

interface LmdbRecords {
  readonly users: UserRecords
  readonly organizations: OrganizationRecords
  readonly oneTimeTokens: OneTimeTokenRecords
  readonly refreshTokens: LmdbRefreshTokens
}

export function lmdbMembershipChanges(store: PluginStore, records: LmdbRecords): MembershipChanges {
  const { users, organizations, oneTimeTokens, refreshTokens } = records
  const targetOf = (member: Member, userId: string, newRole: Role | undefined) =>
    checkMemberChange(member, userId, organizations.membership(member.organization.id, userId), newRole, () => countOwners(organizations.members(member.organization.id)))

  return {
    signUp(input) {
      return store.transaction((): SignUpOutcome => {
        const existing = users.byEmail(input.email)
        if (existing !== undefined) return { existing }
        const organization = organizations.create(input.organizationName, input.createdAt)
        const user = users.create({ email: input.email, passwordHash: input.passwordHash, verified: false, organizationId: organization.id, createdAt: input.createdAt })!
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
        const user = existing === undefined
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
