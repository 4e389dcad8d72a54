// The accounts plugin's records in this gateway's LMDB store: for a gateway alone, or for the
// processes of one host that share its store (tollgate serve --workers N).
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { storedOnce } from '../../../../proxy/stores/stored-once.ts'
import type { AccountsConfig } from '../../schema.ts'
import { newSigningKey, SIGNING_KEY_ENTRY } from '../../signing-key.ts'
import type { AccountStore } from '../account-store.ts'
import { createMemoryAttemptLimiter } from '../memory/attempt-limiter.ts'
import type { Organizations } from '../organizations.ts'
import { createSmtpMailer } from '../smtp-mailer.ts'
import type { Users } from '../users.ts'
import { createStoreAttemptLimiter } from './attempt-limiter.ts'
import { openAuditLog } from './audit-log.ts'
import { lmdbMembershipChanges } from './membership-changes.ts'
import { openOneTimeTokens } from './one-time-tokens.ts'
import { openOrganizationRecords } from './organizations.ts'
import { createOutboxMailer } from './outbox.ts'
import { openRefreshTokens } from './refresh-tokens.ts'
import { openUserRecords } from './users.ts'

export function openLmdbAccountStore(store: PluginStore, clock: Clock, config: AccountsConfig, refreshLifetimeMs: number): AccountStore {
  const userRecords = openUserRecords(store)
  const organizationRecords = openOrganizationRecords(store)
  const oneTimeTokens = openOneTimeTokens(store)
  const isMember = (userId: string) => {
    const organizationId = userRecords.byId(userId)?.organizationId
    return organizationId != null && organizationRecords.membership(organizationId, userId) !== undefined
  }
  const refreshTokens = openRefreshTokens(store, refreshLifetimeMs, isMember)
  const users: Users = {
    byId: async (id) => userRecords.byId(id),
    byEmail: async (email) => userRecords.byEmail(email),
  }
  const organizations: Organizations = {
    get: async (id) => organizationRecords.get(id),
    list: async () => organizationRecords.list(),
    rename: (id, name) => store.transaction(() => organizationRecords.rename(id, name)),
    membership: async (organizationId, userId) => organizationRecords.membership(organizationId, userId),
    members: async (organizationId) => organizationRecords.members(organizationId),
  }
  return {
    users,
    organizations,
    oneTimeTokens,
    refreshTokens,
    changes: lmdbMembershipChanges(store, { users: userRecords, organizations: organizationRecords, oneTimeTokens: oneTimeTokens.records, refreshTokens }),
    audit: openAuditLog(store, clock),
    limiter: config.shared ? createStoreAttemptLimiter(store, clock) : createMemoryAttemptLimiter(clock),
    mailer: config.smtpUrl === undefined ? createOutboxMailer(store, clock) : createSmtpMailer(config.smtpUrl, config.mailFrom),
    storedSigningKey: () => storedOnce(store, SIGNING_KEY_ENTRY, newSigningKey),
  }
}
