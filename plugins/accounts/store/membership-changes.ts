// The changes that touch several kinds of record at once (users, organizations, memberships,
// tokens): each commits whole or not at all, in either store (lmdb/membership-changes.ts,
// postgres/membership-changes.ts).
import type { Member } from '../logic/member.ts'
import type { Role } from '../logic/roles.ts'
import type { PayloadOf } from './one-time-tokens.ts'
import type { Membership } from './organizations.ts'
import type { User } from './users.ts'

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
