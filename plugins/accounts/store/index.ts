// Where the accounts plugin keeps its records: this gateway's LMDB store, or PostgreSQL when
// DATABASE_URL is set, so that every gateway on that database knows the same people, sessions and
// signing key. Chosen here only, once at setup; the routes see only these interfaces.
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import type { Mailer } from '../logic/mail.ts'
import type { AccountsConfig, SigningKeyJwk } from '../schema.ts'
import type { AttemptLimiter } from './attempt-limiter.ts'
import type { AuditLog } from './audit-log.ts'
import { openLmdbAccountStore } from './lmdb/account-store.ts'
import type { MembershipChanges } from './membership-changes.ts'
import type { OneTimeTokens } from './one-time-tokens.ts'
import type { Organizations } from './organizations.ts'
import { openPostgresAccountStore } from './postgres/account-store.ts'
import type { RefreshTokens } from './refresh-tokens.ts'
import type { Users } from './users.ts'

export interface AccountStore {
  readonly users: Users
  readonly organizations: Organizations
  readonly changes: MembershipChanges
  readonly oneTimeTokens: OneTimeTokens
  readonly refreshTokens: RefreshTokens
  readonly audit: AuditLog
  readonly limiter: AttemptLimiter
  readonly mailer: Mailer
  /** The signing key made once for the store, when none is configured. */
  storedSigningKey(): Promise<SigningKeyJwk>
}

export async function openAccountStore(deps: PluginDeps, config: AccountsConfig, refreshLifetimeMs: number): Promise<AccountStore> {
  const { store, database, clock, log } = deps
  return database === undefined
    ? openLmdbAccountStore(store, clock, config, refreshLifetimeMs)
    : openPostgresAccountStore(database, clock, config, refreshLifetimeMs, log)
}
