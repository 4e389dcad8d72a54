// Invitations: an admin invites an address with a role; the mailed single-use token, presented
// to the accept route, makes a new account or brings an account without an organization in.
import { z } from 'zod'
import { MethodNotAllowedError } from '../../../proxy/pipeline/errors.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import { validate } from '../../../proxy/http/validate.ts'
import { emailField, passwordField, tokenField, tokenQuery } from './fields.ts'
import { invitationMail } from '../logic/mail.ts'
import { actorOf, memberRoute } from './member-route.ts'
import { invalidInvitation } from '../logic/membership-rules.ts'
import { toPage } from './pages.ts'
import { accountRoute } from './route.ts'
import { requireRole } from '../logic/roles.ts'
import type { AccountServices } from '../services.ts'
import { startSession } from './session.ts'
import { tokenReply } from './refresh-cookie.ts'
import { normalizeEmail } from '../store/users.ts'
import { invitationAnswer, loginAnswerSchema } from './answers.ts'

const ACCEPT_PATH = '/api/orgs/invitations/accept'

const inviteBody = z.strictObject({
  email: emailField,
  role: z.enum(['admin', 'member'], { error: 'role must be admin or member' }).default('member'),
})
const acceptBody = z.strictObject({
  token: tokenField,
  /** Sets the password of an account the invitation creates; without one, it signs in by magic link. */
  password: passwordField.optional(),
})

export function invitationRoutes(services: AccountServices): RouteSpec[] {
  const { changes, oneTimeTokens, passwords, audit } = services
  return [
    memberRoute(services, {
      method: 'POST',
      path: '/api/orgs/me/invitations',
      name: 'org_invite',
      body: inviteBody,
      docs: { status: 201, response: invitationAnswer },
      async handle(ctx, member, body) {
        requireRole(member.role, 'admin')
        const email = normalizeEmail(body.email)
        const expiresAt = services.now() + services.config.invitationHours * 3600_000
        const organization = member.organization
        services.sendLater(ctx, async (base) => {
          const token = await oneTimeTokens.issue(
            { kind: 'invite', organizationId: organization.id, email, role: body.role, invitedBy: member.user.id },
            expiresAt,
          )
          return invitationMail(email, organization.name, `${base}${ACCEPT_PATH}`, token)
        })
        await audit.record(organization.id, {
          actor: actorOf(member),
          action: 'member.invite',
          target: { type: 'invitation', id: email },
          details: { role: body.role },
        })
        return Reply.json({ success: true, invitation: { email, role: body.role, expiresAt: new Date(expiresAt).toISOString() } }, 201)
      },
    }),
    // The mailed link: the dashboard's page that asks for a password and posts the token. Only a
    // browser opens it (an API client posts the token), so it is not in /openapi.json.
    accountRoute({
      method: 'GET',
      path: ACCEPT_PATH,
      name: 'org_invitation_open',
      documented: false,
      async handle(ctx) {
        const { token } = validate(tokenQuery, Object.fromEntries(ctx.query), 'query')
        const page = toPage(services.pages, 'acceptInvitation', token)
        if (page === undefined) throw new MethodNotAllowedError(['POST'])
        return page
      },
    }),
    accountRoute({
      method: 'POST',
      path: ACCEPT_PATH,
      name: 'org_invitation_accept',
      body: acceptBody,
      docs: { response: loginAnswerSchema, errors: [401, 409] },
      async handle(ctx, body) {
        const now = services.now()
        if ((await oneTimeTokens.peek('invite', body.token, now)) === undefined) throw invalidInvitation()
        const passwordHash = body.password === undefined ? null : await passwords.hash(body.password)
        const joinedAt = services.isoNow()
        const { user, invitation } = await changes.acceptInvitation(body.token, now, passwordHash, joinedAt)
        await audit.record(invitation.organizationId, {
          actor: { userId: user.id, email: user.email },
          action: 'member.join',
          target: { type: 'member', id: user.id },
          details: { role: invitation.role, invitedBy: invitation.invitedBy },
        })
        return tokenReply(ctx.headers, await startSession(services, user, invitation.organizationId), services.config.refreshTokenDays)
      },
    }),
  ]
}
