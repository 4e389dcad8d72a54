// Who a management request is from: a user, the organization their access token is for, their
// role in it now, and the session the token belongs to. Routes resolve it from the bearer token
// (routes/bearer.ts); the rules and the stores take it as it is.
import type { Organization } from '../store/organizations.ts'
import type { User } from '../store/users.ts'
import type { Role } from './roles.ts'

export interface Member {
  readonly user: User
  readonly organization: Organization
  readonly role: Role
  /** The session (refresh-token family) of the access token. */
  readonly familyId: string
}
