// The accounts plugin's records in PostgreSQL (DATABASE_URL), shared by every gateway on the
// database: a user who signs up on one logs in on another, a refresh token rotated on one is
// refused as reused on all, and one signing key, made by whichever gateway starts first, signs
// and verifies every access token.
import type { Logger } from 'pino'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../../../proxy/stores/database.ts'
import type { AccountStore } from '../account-store.ts'
import { postgresAttemptLimiter } from './attempt-limiter.ts'
import { postgresAuditLog } from './audit-log.ts'
import { postgresMembershipChanges } from './membership-changes.ts'
import { postgresOneTimeTokens } from './one-time-tokens.ts'
import { postgresOutboxMailer, postgresRelayMailer } from './outbox.ts'
import { postgresRefreshTokens } from './refresh-tokens.ts'
import { ACCOUNTS_MIGRATIONS } from './schema.ts'
import { postgresOrganizations, postgresUsers } from './users.ts'
import type { AccountsConfig, SigningKeyJwk } from '../../schema.ts'
import { newSigningKey, SIGNING_KEY_ENTRY } from '../../signing-key.ts'
import { createSmtpMailer } from '../smtp-mailer.ts'

/** The first gateway to insert it wins; every gateway reads back that one. */
async function sharedSigningKey(database: PluginDatabase): Promise<SigningKeyJwk> {
  await database.query('INSERT INTO accounts_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [SIGNING_KEY_ENTRY, await newSigningKey()])
  const { rows } = await database.query<{ value: SigningKeyJwk }>('SELECT value FROM accounts_meta WHERE name = $1', [SIGNING_KEY_ENTRY])
  return rows[0]!.value
}

export async function openPostgresAccountStore(
  database: PluginDatabase,
  clock: Clock,
  config: AccountsConfig,
  refreshLifetimeMs: number,
  log: Logger,
): Promise<AccountStore> {
  await database.migrate(ACCOUNTS_MIGRATIONS)
  return {
    users: postgresUsers(database),
    organizations: postgresOrganizations(database),
    changes: postgresMembershipChanges(database),
    oneTimeTokens: postgresOneTimeTokens(database),
    refreshTokens: postgresRefreshTokens(database, refreshLifetimeMs),
    audit: postgresAuditLog(database, clock),
    limiter: postgresAttemptLimiter(database, clock),
    mailer:
      config.smtpUrl === undefined
        ? postgresOutboxMailer(database, clock)
        : postgresRelayMailer(database, clock, createSmtpMailer(config.smtpUrl, config.mailFrom), log),
    storedSigningKey: () => sharedSigningKey(database),
  }
}
