// Refresh-token rotation and logout.
import { z } from 'zod'
import { UnauthorizedError } from '../../proxy/errors.ts'
import type { RouteSpec } from '../../proxy/plugin.ts'
import { Reply } from '../../proxy/reply.ts'
import { authenticateMember } from './bearer.ts'
import { tokenField } from './fields.ts'
import { accountRoute } from './route.ts'
import type { AccountServices } from './services.ts'
import { tokenAnswer } from './session.ts'
import { messageAnswer, tokenAnswerSchema } from './answers.ts'

const refreshBody = z.strictObject({ refresh_token: tokenField })
/** Without a refresh token, the bearer access token's session is ended. */
const logoutBody = z.strictObject({ refresh_token: tokenField.optional() })

export function tokenRoutes(services: AccountServices): RouteSpec[] {
  const { users, refreshTokens } = services
  return [
    accountRoute({
      method: 'POST', path: '/api/auth/refresh', name: 'auth_refresh', body: refreshBody,
      docs: { response: tokenAnswerSchema, errors: [401] },
      async handle(ctx, body) {
        const rotation = await refreshTokens.rotate(body.refresh_token, services.now())
        if (!rotation.ok) {
          if (rotation.reason === 'reused') ctx.log.warn('a rotated refresh token was presented again; its session family is revoked')
          throw new UnauthorizedError('The refresh token is invalid, expired or revoked.')
        }
        const organizationId = (await users.byId(rotation.userId))?.organizationId
        // Removed between the rotation and now: the new token is dead already (see member removal).
        if (organizationId == null) throw new UnauthorizedError('The refresh token is invalid, expired or revoked.')
        return Reply.json(await tokenAnswer(services, rotation.userId, organizationId, rotation.familyId, rotation.token))
      },
    }),
    accountRoute({
      method: 'POST', path: '/api/auth/logout', name: 'auth_logout', body: logoutBody,
      docs: { response: messageAnswer, auth: 'optionalAccessToken' },
      async handle(ctx, body) {
        if (body.refresh_token !== undefined) {
          if (!(await refreshTokens.revokeByToken(body.refresh_token))) throw new UnauthorizedError('The refresh token is invalid.')
        } else {
          await refreshTokens.revokeFamily((await authenticateMember(services, ctx.headers)).familyId)
        }
        return Reply.json({ success: true, message: 'Signed out: the session\'s tokens no longer work.' })
      },
    }),
  ]
}
