// One-time tokens in PostgreSQL: taking one is a single DELETE … RETURNING, so of two uses of one
// token, on one gateway or two, exactly one gets its payload.
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import type { OneTimePayload, OneTimeTokens, PayloadOf } from '../one-time-tokens.ts'
import { newOpaqueToken, tokenDigest } from '../../logic/opaque-token.ts'
import { removeExpired } from './schema.ts'

type Kind = OneTimePayload['kind']
interface Row {
  payload: OneTimePayload
  live: boolean
}

/** Removes the token when it is of this kind; its payload when it had not expired. `sql` may be a transaction's. */
export async function takeOneTimeToken<K extends Kind>(sql: Sql, kind: K, token: string, now: number): Promise<PayloadOf<K> | undefined> {
  const { rows } = await sql.query<Row>('DELETE FROM accounts_one_time_tokens WHERE digest = $1 AND kind = $2 RETURNING payload, expires_at > $3 AS live', [
    tokenDigest(token),
    kind,
    now,
  ])
  return rows[0]?.live === true ? (rows[0].payload as PayloadOf<K>) : undefined
}

/** The payload of a live token of this kind; `lock`: held until the transaction ends, so no other use takes it meanwhile. */
export async function peekOneTimeToken<K extends Kind>(sql: Sql, kind: K, token: string, now: number, lock = false): Promise<PayloadOf<K> | undefined> {
  const { rows } = await sql.query<Row>(
    `SELECT payload, true AS live FROM accounts_one_time_tokens WHERE digest = $1 AND kind = $2 AND expires_at > $3${lock ? ' FOR UPDATE' : ''}`,
    [tokenDigest(token), kind, now],
  )
  return rows[0]?.payload as PayloadOf<K> | undefined
}

export function postgresOneTimeTokens(database: PluginDatabase): OneTimeTokens {
  return {
    async issue(payload, expiresAt) {
      const token = newOpaqueToken()
      await database.query('INSERT INTO accounts_one_time_tokens (digest, kind, payload, expires_at) VALUES ($1, $2, $3, $4)', [
        tokenDigest(token),
        payload.kind,
        payload,
        expiresAt,
      ])
      return token
    },
    peek: (kind, token, now) => peekOneTimeToken(database, kind, token, now),
    take: (kind, token, now) => takeOneTimeToken(database, kind, token, now),
    removeExpired: (now) => removeExpired(database, 'accounts_one_time_tokens', 'digest', now),
  }
}
