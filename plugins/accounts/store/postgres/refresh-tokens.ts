// Refresh tokens in PostgreSQL, shared by every gateway: a token rotated on one is refused as
// reused on any other. A rotation marks the token with one conditional UPDATE, so of two
// presentations of one token on two gateways exactly one rotates it; the other finds it rotated
// and revokes the family.
import { randomUUID } from 'node:crypto'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import { newOpaqueToken, tokenDigest } from '../../logic/opaque-token.ts'
import { removeExpired } from './schema.ts'
import type { RefreshTokens, Rotation } from '../refresh-tokens.ts'

/** The user is still a member of the organization their record names. */
const IS_MEMBER = `EXISTS (
  SELECT 1 FROM accounts_users u JOIN accounts_memberships m ON m.user_id = u.id AND m.organization_id = u.record->>'organizationId'
  WHERE u.id = $1)`

export function postgresRefreshTokens(database: PluginDatabase, lifetimeMs: number): RefreshTokens {
  const revoke = (sql: Sql, familyId: string) => sql.query('UPDATE accounts_token_families SET revoked = true WHERE id = $1', [familyId])
  async function issueInFamily(sql: Sql, familyId: string, userId: string, now: number): Promise<string> {
    const token = newOpaqueToken()
    await sql.query('INSERT INTO accounts_refresh_tokens (digest, family_id, user_id, expires_at) VALUES ($1, $2, $3, $4)', [
      tokenDigest(token),
      familyId,
      userId,
      now + lifetimeMs,
    ])
    return token
  }

  /** Why a token that could not be rotated is refused; a reused one revokes its family. */
  async function refusal(sql: Sql, digest: string): Promise<Rotation> {
    const { rows } = await sql.query<{ family_id: string; rotated: boolean; revoked: boolean | null }>(
      `SELECT t.family_id, t.rotated, f.revoked FROM accounts_refresh_tokens t
       LEFT JOIN accounts_token_families f ON f.id = t.family_id WHERE t.digest = $1`,
      [digest],
    )
    const stored = rows[0]
    if (stored === undefined) return { ok: false, reason: 'unknown' }
    if (stored.revoked !== false) return { ok: false, reason: 'revoked' }
    if (stored.rotated) {
      await revoke(sql, stored.family_id)
      return { ok: false, reason: 'reused' }
    }
    return { ok: false, reason: 'expired' }
  }

  return {
    start(userId, now) {
      return database.transaction(async (sql) => {
        const familyId = randomUUID()
        await sql.query('INSERT INTO accounts_token_families (id, user_id, expires_at) VALUES ($1, $2, $3)', [familyId, userId, now + lifetimeMs])
        return { token: await issueInFamily(sql, familyId, userId, now), familyId }
      })
    },
    rotate(token, now) {
      const digest = tokenDigest(token)
      return database.transaction(async (sql): Promise<Rotation> => {
        const { rows } = await sql.query<{ family_id: string; user_id: string }>(
          `UPDATE accounts_refresh_tokens SET rotated = true WHERE digest = $1 AND NOT rotated AND expires_at > $2 RETURNING family_id, user_id`,
          [digest, now],
        )
        const rotated = rows[0]
        if (rotated === undefined) return refusal(sql, digest)
        const family = await sql.query<{ allowed: boolean }>(
          `SELECT ${IS_MEMBER} AS allowed FROM accounts_token_families WHERE id = $2 AND NOT revoked FOR UPDATE`,
          [rotated.user_id, rotated.family_id],
        )
        if (family.rows[0] === undefined) return { ok: false, reason: 'revoked' }
        if (!family.rows[0].allowed) {
          await revoke(sql, rotated.family_id)
          return { ok: false, reason: 'revoked' }
        }
        await sql.query('UPDATE accounts_token_families SET expires_at = $2 WHERE id = $1', [rotated.family_id, now + lifetimeMs])
        return { ok: true, token: await issueInFamily(sql, rotated.family_id, rotated.user_id, now), familyId: rotated.family_id, userId: rotated.user_id }
      })
    },
    async revokeByToken(token) {
      const { rowCount } = await database.query(
        'UPDATE accounts_token_families SET revoked = true WHERE id = (SELECT family_id FROM accounts_refresh_tokens WHERE digest = $1) RETURNING id',
        [tokenDigest(token)],
      )
      if (rowCount !== 0) return true
      // A token whose family was swept away is known still, as in LMDB.
      return (await database.query('SELECT 1 FROM accounts_refresh_tokens WHERE digest = $1', [tokenDigest(token)])).rowCount !== 0
    },
    async revokeFamily(familyId) {
      await revoke(database, familyId)
    },
    async isLive(familyId, now) {
      const { rowCount } = await database.query('SELECT 1 FROM accounts_token_families WHERE id = $1 AND NOT revoked AND expires_at > $2', [familyId, now])
      return rowCount !== 0
    },
    async removeExpired(now) {
      await removeExpired(database, 'accounts_refresh_tokens', 'digest', now)
      await removeExpired(database, 'accounts_token_families', 'id', now)
    },
  }
}
