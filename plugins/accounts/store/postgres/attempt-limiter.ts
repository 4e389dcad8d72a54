// Attempt counting in PostgreSQL, so the limits hold for every gateway on the database together.
// An attempt takes a transaction-scoped advisory lock per key (in one order, so two attempts never
// wait on each other crosswise), reads, decides and writes. Keys are stored as SHA-256 digests,
// as in LMDB: the database never lists the addresses and IPs that were tried.
import { createHash } from 'node:crypto'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../../../proxy/stores/database.ts'
import type { AttemptLimiter } from '../attempt-limiter.ts'
import { decideAttempt, WINDOW_MS, type AttemptWindow } from '../../logic/attempt-window.ts'

// Expired windows removed per attempt: more than an attempt can open (one per key), so the
// expired backlog only shrinks while attempts arrive.
const SWEEP_PER_ATTEMPT = 16

const digestOf = (key: string) => createHash('sha256').update(key).digest('base64url')

export function postgresAttemptLimiter(database: PluginDatabase, clock: Clock): AttemptLimiter {
  return {
    attempt(keys) {
      const hashed = keys.map(({ key, limit }) => ({ key: digestOf(key), limit }))
      const digests = [...new Set(hashed.map(({ key }) => key))].sort()
      return database.transaction(async (sql) => {
        await sql.query(`SELECT pg_advisory_xact_lock(hashtext('accounts attempt ' || digest)) FROM unnest($1::text[]) AS digest ORDER BY digest COLLATE "C"`, [
          digests,
        ])
        const now = clock.now()
        await sql.query(
          `DELETE FROM accounts_attempt_windows WHERE digest IN (
             SELECT digest FROM accounts_attempt_windows WHERE start <= $1 ORDER BY start LIMIT ${SWEEP_PER_ATTEMPT} FOR UPDATE SKIP LOCKED)`,
          [now - WINDOW_MS],
        )
        const { rows } = await sql.query<{ digest: string; start: string; count: number }>(
          'SELECT digest, start, count FROM accounts_attempt_windows WHERE digest = ANY($1::text[])',
          [digests],
        )
        const windows = new Map<string, AttemptWindow>(rows.map((row) => [row.digest, { start: Number(row.start), count: row.count }]))
        const { attempt, changes } = decideAttempt(hashed, (digest) => windows.get(digest), now)
        for (const { key, window } of changes) {
          await sql.query(
            `INSERT INTO accounts_attempt_windows (digest, start, count) VALUES ($1, $2, $3)
             ON CONFLICT (digest) DO UPDATE SET start = excluded.start, count = excluded.count`,
            [key, window.start, window.count],
          )
        }
        return attempt
      })
    },
  }
}
