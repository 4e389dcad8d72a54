// Sign-up and e-mail verification. Signing up with an address that has an account answers
// exactly like a new sign-up and creates nothing, so the answer never tells whether it exists.
import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { UnauthorizedError } from '../errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { validate } from '../../../proxy/http/validate.ts'
import { emailField, nameField, passwordField, tokenQuery } from './fields.ts'
import { accountExistsMail, verificationMail } from '../logic/mail.ts'
import { isNavigation, toPage } from './pages.ts'
import { accountRoute } from './route.ts'
import type { AccountServices } from '../services.ts'
import { messageAnswer, signupAnswer } from './answers.ts'

const VERIFY_TTL_MS = 24 * 3600_000

const signupBody = z.strictObject({
  email: emailField,
  password: passwordField,
  organizationName: nameField('organizationName'),
})

const SIGNUP_MESSAGE = 'Check your inbox: open the link we sent to verify your e-mail address, then log in.'

export function signupRoutes(services: AccountServices): RouteSpec[] {
  const { changes, oneTimeTokens, passwords } = services
  return [
    accountRoute({
      method: 'POST',
      path: '/api/auth/signup',
      name: 'auth_signup',
      body: signupBody,
      docs: { response: signupAnswer, errors: [429] },
      async handle(ctx, body) {
        await services.limitAttempts(ctx, 'signup', body.email)
        // Hashed whether or not the address is new, so both answers take the same time.
        const passwordHash = await passwords.hash(body.password)
        const createdAt = services.isoNow()
        const outcome = await changes.signUp({ email: body.email, passwordHash, organizationName: body.organizationName, createdAt })
        const user = outcome.created ?? outcome.existing
        if (user.verified) {
          services.sendLater(ctx, async () => accountExistsMail(user.email))
        } else {
          // A repeated sign-up of an unverified address mails a new link bound to its own password:
          // whoever opens a link sets the password of the sign-up that sent it, so a stranger who
          // signed up first with someone else's address cannot keep a password on their account.
          services.sendLater(ctx, async (base) => {
            const token = await oneTimeTokens.issue({ kind: 'verify', userId: user.id, passwordHash }, services.now() + VERIFY_TTL_MS)
            return verificationMail(user.email, `${base}/api/auth/verify?token=${token}`)
          })
        }
        // An existing account's id stays private: the answer carries an id that names nothing.
        const id = outcome.created?.id ?? randomUUID()
        return Reply.json({ success: true, user: { id, email: user.email }, message: SIGNUP_MESSAGE })
      },
    }),
    accountRoute({
      method: 'GET',
      path: '/api/auth/verify',
      name: 'auth_verify',
      docs: { query: tokenQuery, response: messageAnswer, redirects: true, errors: [401] },
      async handle(ctx) {
        const { token } = validate(tokenQuery, Object.fromEntries(ctx.query), 'query')
        const page = isNavigation(ctx.headers) ? toPage(services.pages, 'verifyEmail', token) : undefined
        if (page !== undefined) return page
        if (!(await changes.verifyEmail(token, services.now()))) throw new UnauthorizedError('The verification link is invalid, expired or already used.')
        return Reply.json({ success: true, message: 'Your e-mail address is verified; you can log in now.' })
      },
    }),
  ]
}
