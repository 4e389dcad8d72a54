// Refresh-token rotation and logout. The refresh token comes in the body or, for a caller that
// asked for it with X-Refresh-Cookie (the dashboard), in the HttpOnly cookie set at sign-in.
import { z } from 'zod'
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import { UnauthorizedError } from '../errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { authenticateMember } from './bearer.ts'
import { tokenField } from './fields.ts'
import { clearRefreshCookie, refreshTokenFromCookie, tokenReply, wantsRefreshCookie } from './refresh-cookie.ts'
import { accountRoute } from './route.ts'
import type { AccountServices } from '../services.ts'
import { tokenAnswer } from './session.ts'
import { messageAnswer, refreshAnswerSchema } from './answers.ts'

const refreshBody = z.strictObject({ refresh_token: tokenField.optional() })
/** Without a refresh token, the bearer access token's session is ended. */
const logoutBody = z.strictObject({ refresh_token: tokenField.optional() })

const invalidToken = () => new UnauthorizedError('The refresh token is invalid, expired or revoked.')

export function tokenRoutes(services: AccountServices): RouteSpec[] {
  const { users, refreshTokens } = services
  return [
    accountRoute({
      method: 'POST',
      path: '/api/auth/refresh',
      name: 'auth_refresh',
      body: refreshBody,
      docs: { response: refreshAnswerSchema, errors: [401] },
      async handle(ctx, body) {
        const inCookie = wantsRefreshCookie(ctx.headers)
        const token = body.refresh_token ?? (inCookie ? refreshTokenFromCookie(ctx.headers) : undefined)
        if (token === undefined) {
          if (inCookie) throw invalidToken()
          throw new InvalidRequestError('Invalid request', 'refresh_token is required, unless X-Refresh-Cookie: 1 sends the refresh cookie.')
        }
        const rotation = await refreshTokens.rotate(token, services.now())
        if (!rotation.ok) {
          if (rotation.reason === 'reused') ctx.log.warn('a rotated refresh token was presented again; its session family is revoked')
          throw invalidToken()
        }
        const user = await users.byId(rotation.userId)
        const organizationId = user?.organizationId
        // Removed between the rotation and now: the new token is dead already (see member removal).
        if (user === undefined || organizationId == null) throw invalidToken()
        const answer = await tokenAnswer(services, rotation.userId, organizationId, rotation.familyId, rotation.token)
        // A page that reloads has only the cookie left: it learns whom it is signed in as here.
        const withUser = inCookie ? { ...answer, user: { id: user.id, email: user.email, organization_id: organizationId } } : answer
        return tokenReply(ctx.headers, withUser, services.config.refreshTokenDays)
      },
    }),
    accountRoute({
      method: 'POST',
      path: '/api/auth/logout',
      name: 'auth_logout',
      body: logoutBody,
      docs: { response: messageAnswer, auth: 'optionalAccessToken' },
      async handle(ctx, body) {
        if (body.refresh_token !== undefined) {
          if (!(await refreshTokens.revokeByToken(body.refresh_token))) throw new UnauthorizedError('The refresh token is invalid.')
        } else {
          await refreshTokens.revokeFamily((await authenticateMember(services, ctx.headers)).familyId)
        }
        return Reply.json({ success: true, message: "Signed out: the session's tokens no longer work." }, 200, clearRefreshCookie)
      },
    }),
  ]
}
