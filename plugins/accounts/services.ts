// Everything the account routes share, built once at setup.
import type { Logger } from 'pino'
import type { Clock } from '../../proxy/kit/clock.ts'
import type { RequestContext } from '../../proxy/pipeline/context.ts'
import { TooManyRequestsError } from './errors.ts'
import type { PluginDeps } from '../../proxy/pipeline/plugin.ts'
import type { Authenticate, AuthRegistry } from '../auth/state.ts'
import type { AccountPages } from '../dashboard/state.ts'
import type { Policies } from '../governor/state.ts'
import type { LocalModel } from '../router/state.ts'
import { createAccessTokens, type AccessTokens } from './access-tokens.ts'
import { openAccountStore } from './store/index.ts'
import type { AuditLog } from './store/audit-log.ts'
import { linkBase } from './logic/links.ts'
import type { Mail, Mailer } from './logic/mail.ts'
import type { MembershipChanges } from './store/membership-changes.ts'
import type { OneTimeTokens } from './store/one-time-tokens.ts'
import type { Organizations } from './store/organizations.ts'
import { createPasswords, type Passwords } from './passwords.ts'
import type { RefreshTokens } from './store/refresh-tokens.ts'
import type { AccountsConfig } from './schema.ts'
import { loadSigningKey } from './signing-key.ts'
import { normalizeEmail, type Users } from './store/users.ts'

const DAY_MS = 24 * 3600_000

export interface AccountServices {
  readonly config: AccountsConfig
  readonly clock: Clock
  readonly log: Logger
  readonly registry: AuthRegistry
  /** The auth plugin's check of an API key, for the routes that also take keys. */
  readonly authenticate: Authenticate
  /** The router's local model, which answers the account query. */
  readonly localModel: LocalModel
  /** The Governor's settings writer; undefined when the gateway runs without the Governor. */
  readonly policies: Policies | undefined
  readonly users: Users
  readonly organizations: Organizations
  readonly changes: MembershipChanges
  readonly oneTimeTokens: OneTimeTokens
  readonly refreshTokens: RefreshTokens
  readonly accessTokens: AccessTokens
  readonly passwords: Passwords
  readonly audit: AuditLog
  readonly mailer: Mailer
  /** The dashboard's pages for mailed links, when one is served. */
  readonly pages: AccountPages | undefined
  /** Counts an attempt on a guarded route for the client's IP and the e-mail; 429 past the limit. */
  limitAttempts(ctx: RequestContext, route: string, email: string): Promise<void>
  /**
   * Composes and sends a mail in the background: the answer never waits for a delivery, so its
   * timing cannot tell whether a mail was sent. `compose` gets the links' base URL.
   */
  sendLater(ctx: RequestContext, compose: (base: string) => Promise<Mail | undefined>): void
  now(): number
  isoNow(): string
}

export async function createAccountServices(config: AccountsConfig, deps: PluginDeps, registry: AuthRegistry): Promise<AccountServices> {
  const { clock, log, track } = deps
  const refreshLifetimeMs = config.refreshTokenDays * DAY_MS
  const records = await openAccountStore(deps, config, refreshLifetimeMs)
  const { users, organizations, changes, oneTimeTokens, refreshTokens, audit, limiter, mailer } = records
  const signingKey = await loadSigningKey(config.signingKey ?? (await records.storedSigningKey()))
  await oneTimeTokens.removeExpired(clock.now())
  await refreshTokens.removeExpired(clock.now())
  let warnedAboutLinks = false

  return {
    config,
    clock,
    log,
    registry,
    mailer,
    users,
    organizations,
    changes,
    oneTimeTokens,
    refreshTokens,
    audit,
    // The accounts plugin requires auth and the router, so their services are there.
    authenticate: deps.services.authenticate!,
    localModel: deps.services.localModel!,
    policies: deps.services.policies,
    pages: deps.services.accountPages,
    accessTokens: createAccessTokens(signingKey, config.issuer, config.audience, clock),
    passwords: await createPasswords(deps.pool),
    async limitAttempts(ctx, route, email) {
      const { perIpPerMinute, perEmailPerMinute } = config.rateLimits
      const attempt = await limiter.attempt([
        { key: `${route}|ip|${ctx.clientIp}`, limit: perIpPerMinute },
        { key: `${route}|email|${normalizeEmail(email)}`, limit: perEmailPerMinute },
      ])
      if (!attempt.allowed) throw new TooManyRequestsError(attempt.retryAfterS)
    },
    sendLater(ctx, compose) {
      const base = linkBase(config.publicUrl, ctx.headers)
      if (base === undefined) {
        if (!warnedAboutLinks) log.warn('account mail not sent: set publicUrl (PUBLIC_AUTH_URL) to mail links to clients that are not on this machine')
        warnedAboutLinks = true
        return
      }
      track(compose(base).then((mail) => (mail === undefined ? undefined : mailer.send(mail))))
    },
    now: () => clock.now(),
    isoNow: () => new Date(clock.now()).toISOString(),
  }
}
