// The changes across users, organizations, memberships and tokens in PostgreSQL, each in one
// transaction. A change to an organization's members first locks all of its membership rows, so
// two admins on two gateways cannot both remove one of the last two owners.
import { randomUUID } from 'node:crypto'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { Member } from '../../logic/member.ts'
import type { MembershipChanges, SignUpOutcome } from '../membership-changes.ts'
import { checkJoin, checkMemberChange, countOwners, invalidInvitation, memberElsewhere } from '../../logic/membership-rules.ts'
import type { Membership, Organization } from '../organizations.ts'
import { peekOneTimeToken, takeOneTimeToken } from './one-time-tokens.ts'
import type { Role } from '../../logic/roles.ts'
import { normalizeEmail, type User } from '../users.ts'

type Row<T> = { record: T }

async function insertUser(sql: Sql, user: User): Promise<boolean> {
  const { rowCount } = await sql.query('INSERT INTO accounts_users (id, email, record) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING', [
    user.id,
    user.email,
    user,
  ])
  return rowCount === 1
}

async function updateUser(sql: Sql, id: string, changes: Partial<User>): Promise<User> {
  const { rows } = await sql.query<Row<User>>('UPDATE accounts_users SET record = record || $2::jsonb WHERE id = $1 RETURNING record', [id, changes])
  if (rows[0] === undefined) throw new Error(`no user ${id}`)
  return rows[0].record
}

const putMembership = (sql: Sql, membership: Membership) =>
  sql.query(
    `INSERT INTO accounts_memberships (organization_id, user_id, record) VALUES ($1, $2, $3)
   ON CONFLICT (organization_id, user_id) DO UPDATE SET record = excluded.record`,
    [membership.organizationId, membership.userId, membership],
  )

const userByEmail = async (sql: Sql, email: string, lock: boolean) =>
  (await sql.query<Row<User>>(`SELECT record FROM accounts_users WHERE email = $1${lock ? ' FOR UPDATE' : ''}`, [normalizeEmail(email)])).rows[0]?.record

export function postgresMembershipChanges(database: PluginDatabase): MembershipChanges {
  /** Locks the organization's memberships, then checks the member's right to change the target's. */
  async function targetOf(sql: Sql, member: Member, userId: string, newRole: Role | undefined): Promise<Membership> {
    const { rows } = await sql.query<Row<Membership>>('SELECT record FROM accounts_memberships WHERE organization_id = $1 FOR UPDATE', [member.organization.id])
    const members = rows.map((row) => row.record)
    return checkMemberChange(
      member,
      userId,
      members.find((m) => m.userId === userId),
      newRole,
      () => countOwners(members),
    )
  }

  return {
    signUp(input) {
      return database.transaction(async (sql): Promise<SignUpOutcome> => {
        const organization: Organization = { id: randomUUID(), name: input.organizationName, createdAt: input.createdAt }
        const user: User = {
          id: randomUUID(),
          email: normalizeEmail(input.email),
          passwordHash: input.passwordHash,
          verified: false,
          organizationId: organization.id,
          createdAt: input.createdAt,
        }
        // The unique e-mail decides between two sign-ups of one address on two gateways.
        if (!(await insertUser(sql, user))) return { existing: (await userByEmail(sql, user.email, false))! }
        await sql.query('INSERT INTO accounts_organizations (id, record) VALUES ($1, $2)', [organization.id, organization])
        await putMembership(sql, { organizationId: organization.id, userId: user.id, role: 'owner', joinedAt: input.createdAt })
        return { created: user }
      })
    },
    verifyEmail(token, now) {
      return database.transaction(async (sql) => {
        const payload = await takeOneTimeToken(sql, 'verify', token, now)
        if (payload === undefined) return false
        // Once verified, older links of the same address are dead: none may reset the password.
        const { rowCount } = await sql.query(
          `UPDATE accounts_users SET record = record || jsonb_build_object('verified', true, 'passwordHash', $2::text)
           WHERE id = $1 AND NOT (record->>'verified')::boolean`,
          [payload.userId, payload.passwordHash],
        )
        return rowCount === 1
      })
    },
    acceptInvitation(token, now, passwordHash, joinedAt) {
      return database.transaction(async (sql) => {
        const pending = await peekOneTimeToken(sql, 'invite', token, now, true)
        if (pending === undefined) throw invalidInvitation()
        const organization = await sql.query('SELECT 1 FROM accounts_organizations WHERE id = $1', [pending.organizationId])
        if (organization.rowCount === 0) throw invalidInvitation()
        const existing = await userByEmail(sql, pending.email, true)
        checkJoin(existing, pending.organizationId)
        const invitation = (await takeOneTimeToken(sql, 'invite', token, now))!
        let user: User
        if (existing === undefined) {
          user = { id: randomUUID(), email: invitation.email, passwordHash, verified: true, organizationId: invitation.organizationId, createdAt: joinedAt }
          // Signed up on another gateway since the check: an account of another organization now.
          if (!(await insertUser(sql, user))) throw memberElsewhere()
        } else {
          user = await updateUser(sql, existing.id, {
            organizationId: invitation.organizationId,
            verified: true,
            passwordHash: existing.passwordHash ?? passwordHash,
          })
        }
        await putMembership(sql, { organizationId: invitation.organizationId, userId: user.id, role: invitation.role, joinedAt })
        return { user, invitation }
      })
    },
    changeRole(member, userId, role) {
      return database.transaction(async (sql) => {
        const before = await targetOf(sql, member, userId, role)
        const after = { ...before, role }
        await putMembership(sql, after)
        return { before, after }
      })
    },
    removeMember(member, userId) {
      return database.transaction(async (sql) => {
        const target = await targetOf(sql, member, userId, undefined)
        await sql.query('DELETE FROM accounts_memberships WHERE organization_id = $1 AND user_id = $2', [member.organization.id, userId])
        await updateUser(sql, userId, { organizationId: null })
        // Every session of the user, so none comes back if they rejoin.
        await sql.query('UPDATE accounts_token_families SET revoked = true WHERE user_id = $1 AND NOT revoked', [userId])
        return target
      })
    },
  }
}
