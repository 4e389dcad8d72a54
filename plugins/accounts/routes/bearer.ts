// Who is calling a management route: the bearer access token's user, who must still be a member
// of the token's organization in a session that has not been revoked. Role and membership are
// read from the store on every request, so a role change or a removal takes effect at once.
import type { IncomingHttpHeaders } from 'node:http'
import { UnauthorizedError } from '../errors.ts'
import type { Member } from '../logic/member.ts'
import type { AccountServices } from '../services.ts'

export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')
  return match?.[1]
}

export async function memberOfToken(services: AccountServices, token: string): Promise<Member> {
  const invalid = new UnauthorizedError('The access token is invalid or expired.')
  const claims = await services.accessTokens.verify(token)
  if (claims === undefined || !(await services.refreshTokens.isLive(claims.sid, services.now()))) throw invalid
  const [user, organization, membership] = await Promise.all([
    services.users.byId(claims.sub),
    services.organizations.get(claims.org),
    services.organizations.membership(claims.org, claims.sub),
  ])
  if (user === undefined || organization === undefined || membership === undefined || user.organizationId !== organization.id) throw invalid
  return { user, organization, role: membership.role, familyId: claims.sid }
}

export async function authenticateMember(services: AccountServices, headers: IncomingHttpHeaders): Promise<Member> {
  const token = bearerToken(headers)
  if (token === undefined) throw new UnauthorizedError('Send an access token in Authorization: Bearer.')
  return memberOfToken(services, token)
}
