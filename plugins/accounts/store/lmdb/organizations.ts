// Organizations and their members in LMDB: the member records are keyed `orgId:userId` so that one
// prefix scan lists an organization's members.
import { randomUUID } from 'node:crypto'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { Membership, Organization } from '../organizations.ts'

export interface OrganizationRecords {
  get(id: string): Organization | undefined
  list(): Organization[]
  /** In a transaction. */
  create(name: string, createdAt: string): Organization
  /** In a transaction. */
  rename(id: string, name: string): Organization
  membership(organizationId: string, userId: string): Membership | undefined
  members(organizationId: string): Membership[]
  /** In a transaction. */
  putMembership(membership: Membership): void
  /** In a transaction. */
  removeMembership(organizationId: string, userId: string): void
}

const byCreation = (a: Organization, b: Organization) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)

const memberKey = (organizationId: string, userId: string) => `${organizationId}:${userId}`

export function openOrganizationRecords(store: PluginStore): OrganizationRecords {
  const organizations = store.open<Organization>('organizations')
  const memberships = store.open<Membership>('memberships')
  return {
    get: (id) => organizations.get(id),
    list: () => [...organizations.getRange().map(({ value }) => value)].sort(byCreation),
    create(name, createdAt) {
      const organization: Organization = { id: randomUUID(), name, createdAt }
      organizations.put(organization.id, organization)
      return organization
    },
    rename(id, name) {
      const current = organizations.get(id)
      if (current === undefined) throw new Error(`no organization ${id}`)
      const next = { ...current, name }
      organizations.put(id, next)
      return next
    },
    membership: (organizationId, userId) => memberships.get(memberKey(organizationId, userId)),
    // ';' is the character after ':', so the range holds exactly this organization's keys.
    members: (organizationId) => [...memberships.getRange({ start: `${organizationId}:`, end: `${organizationId};` }).map(({ value }) => value)],
    putMembership(membership) {
      memberships.put(memberKey(membership.organizationId, membership.userId), membership)
    },
    removeMembership(organizationId, userId) {
      memberships.remove(memberKey(organizationId, userId))
    },
  }
}
