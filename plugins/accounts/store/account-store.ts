// Everything the accounts plugin keeps, as the routes see it, in either store
// (lmdb/account-store.ts, postgres/account-store.ts).
import type { Mailer } from '../logic/mail.ts'
import type { SigningKeyJwk } from '../schema.ts'
import type { AttemptLimiter } from './attempt-limiter.ts'
import type { AuditLog } from './audit-log.ts'
import type { MembershipChanges } from './membership-changes.ts'
import type { OneTimeTokens } from './one-time-tokens.ts'
import type { Organizations } from './organizations.ts'
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
