// A signed-in session: a new refresh-token family and its first access token, in the spec's
// login answer.
import { ACCESS_TOKEN_SECONDS } from '../access-tokens.ts'
import type { AccountServices } from '../services.ts'
import type { User } from '../store/users.ts'

export interface TokenAnswer {
  readonly access_token: string
  readonly refresh_token: string
  readonly expires_in: number
  readonly token_type: 'bearer'
}

interface LoginAnswer extends TokenAnswer {
  readonly user: { readonly id: string; readonly email: string; readonly organization_id: string }
}

export async function tokenAnswer(
  services: AccountServices,
  userId: string,
  organizationId: string,
  familyId: string,
  refreshToken: string,
): Promise<TokenAnswer> {
  const accessToken = await services.accessTokens.issue({ sub: userId, org: organizationId, sid: familyId })
  return { access_token: accessToken, refresh_token: refreshToken, expires_in: ACCESS_TOKEN_SECONDS, token_type: 'bearer' }
}

export async function startSession(services: AccountServices, user: User, organizationId: string): Promise<LoginAnswer> {
  const { token, familyId } = await services.refreshTokens.start(user.id, services.now())
  const tokens = await tokenAnswer(services, user.id, organizationId, familyId, token)
  return { ...tokens, user: { id: user.id, email: user.email, organization_id: organizationId } }
}
