// Organizations and their members. A user belongs to one organization at a time. `Organizations`
// is what the routes read, in either store (lmdb/organizations.ts, postgres/users.ts).
import type { Role } from '../logic/roles.ts'

export interface Organization {
  readonly id: string
  readonly name: string
  readonly createdAt: string
}

export interface Membership {
  readonly organizationId: string
  readonly userId: string
  readonly role: Role
  readonly joinedAt: string
}

export interface Organizations {
  get(id: string): Promise<Organization | undefined>
  /** Every organization, oldest first (for the operator's command line). */
  list(): Promise<Organization[]>
  rename(id: string, name: string): Promise<Organization>
  membership(organizationId: string, userId: string): Promise<Membership | undefined>
  members(organizationId: string): Promise<Membership[]>
}
