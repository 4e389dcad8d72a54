// Login with a password, and passwordless login by magic link. Unknown addresses, wrong
// passwords and accounts that cannot sign in all answer alike until the password is proven.
import { z } from 'zod'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import { ForbiddenError, UnauthorizedError } from '../errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { validate } from '../../../proxy/http/validate.ts'
import { emailField, tokenField, tokenQuery } from './fields.ts'
import { magicLinkMail } from '../logic/mail.ts'
import { isNavigation, toPage } from './pages.ts'
import { tokenReply } from './refresh-cookie.ts'
import { accountRoute } from './route.ts'
import type { AccountServices } from '../services.ts'
import { startSession } from './session.ts'
import { loginAnswerSchema, messageAnswer } from './answers.ts'

const MAGIC_LINK_TTL_MS = 3600_000

const loginBody = z.strictObject({
  email: emailField,
  // Any length: a password too short to have been set is just a wrong one.
  password: z.string({ error: 'password must be a string' }).min(1, 'password must not be empty').max(1024, 'password must hold at most 1024 characters'),
})
const magicLinkBody = z.strictObject({ email: emailField })
const magicLinkVerifyBody = z.strictObject({ token: tokenField })

export function loginRoutes(services: AccountServices): RouteSpec[] {
  const { users, oneTimeTokens, passwords } = services

  async function signInWithMagicLink(ctx: RequestContext, token: string): Promise<Reply> {
    const payload = await oneTimeTokens.take('magic', token, services.now())
    const user = payload === undefined ? undefined : await users.byId(payload.userId)
    if (user?.organizationId == null) throw new UnauthorizedError('The sign-in link is invalid, expired or already used.')
    return tokenReply(ctx.headers, await startSession(services, user, user.organizationId), services.config.refreshTokenDays)
  }

  return [
    accountRoute({
      method: 'POST',
      path: '/api/auth/login',
      name: 'auth_login',
      body: loginBody,
      docs: { response: loginAnswerSchema, errors: [401, 403, 429] },
      async handle(ctx, body) {
        await services.limitAttempts(ctx, 'login', body.email)
        const user = await users.byEmail(body.email)
        const matches = await passwords.verify(body.password, user?.passwordHash)
        if (user === undefined || !matches) throw new UnauthorizedError('The e-mail address or the password is wrong.')
        if (!user.verified) throw new ForbiddenError('Verify your e-mail address before logging in; the link is in your inbox.')
        if (user.organizationId === null) throw new ForbiddenError('This account is no longer a member of an organization.')
        return tokenReply(ctx.headers, await startSession(services, user, user.organizationId), services.config.refreshTokenDays)
      },
    }),
    accountRoute({
      method: 'POST',
      path: '/api/auth/magic-link',
      name: 'auth_magic_link',
      body: magicLinkBody,
      docs: { response: messageAnswer, errors: [429] },
      async handle(ctx, body) {
        await services.limitAttempts(ctx, 'magic-link', body.email)
        const user = await users.byEmail(body.email)
        // Only verified members get a link: a link must never be the first proof of an address
        // whose account a stranger may have created with a password of their own.
        if (user?.verified && user.organizationId !== null) {
          services.sendLater(ctx, async (base) => {
            const token = await oneTimeTokens.issue({ kind: 'magic', userId: user.id }, services.now() + MAGIC_LINK_TTL_MS)
            return magicLinkMail(user.email, `${base}/api/auth/magic-link/verify?token=${token}`)
          })
        }
        return Reply.json({ success: true, message: 'If an account exists for this address, a sign-in link is on its way.' })
      },
    }),
    accountRoute({
      method: 'POST',
      path: '/api/auth/magic-link/verify',
      name: 'auth_magic_link_verify',
      body: magicLinkVerifyBody,
      docs: { response: loginAnswerSchema, errors: [401] },
      handle: (ctx, body) => signInWithMagicLink(ctx, body.token),
    }),
    // The link in the e-mail opens this form: in a browser, the dashboard's sign-in page, which
    // posts the token above; the tokens are the page's, not a JSON document's.
    accountRoute({
      method: 'GET',
      path: '/api/auth/magic-link/verify',
      name: 'auth_magic_link_open',
      docs: { query: tokenQuery, response: loginAnswerSchema, redirects: true, errors: [401] },
      async handle(ctx) {
        const { token } = validate(tokenQuery, Object.fromEntries(ctx.query), 'query')
        return (isNavigation(ctx.headers) ? toPage(services.pages, 'signIn', token) : undefined) ?? signInWithMagicLink(ctx, token)
      },
    }),
  ]
}
