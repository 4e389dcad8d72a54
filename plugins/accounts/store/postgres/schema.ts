// The accounts plugin's tables in PostgreSQL. Users, organizations, memberships, one-time token
// payloads and audit entries are kept whole as JSON, as LMDB keeps them; the columns beside them
// are what is looked up, locked or swept on. Tokens are stored by their SHA-256 digest only.
import type { Migration, Sql } from '../../../../proxy/stores/database.ts'

export const ACCOUNTS_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
    CREATE TABLE accounts_meta (name text PRIMARY KEY, value jsonb NOT NULL);
    CREATE TABLE accounts_organizations (id text PRIMARY KEY, record jsonb NOT NULL);
    CREATE TABLE accounts_users (id text PRIMARY KEY, email text NOT NULL UNIQUE, record jsonb NOT NULL);
    CREATE TABLE accounts_memberships (
      organization_id text NOT NULL,
      user_id text NOT NULL,
      record jsonb NOT NULL,
      PRIMARY KEY (organization_id, user_id)
    );
    CREATE TABLE accounts_token_families (
      id text PRIMARY KEY,
      user_id text NOT NULL,
      revoked boolean NOT NULL DEFAULT false,
      expires_at bigint NOT NULL
    );
    CREATE INDEX accounts_token_families_user ON accounts_token_families (user_id);
    CREATE INDEX accounts_token_families_expiry ON accounts_token_families (expires_at);
    CREATE TABLE accounts_refresh_tokens (
      digest text PRIMARY KEY,
      family_id text NOT NULL,
      user_id text NOT NULL,
      rotated boolean NOT NULL DEFAULT false,
      expires_at bigint NOT NULL
    );
    CREATE INDEX accounts_refresh_tokens_expiry ON accounts_refresh_tokens (expires_at);
    CREATE TABLE accounts_one_time_tokens (
      digest text PRIMARY KEY,
      kind text NOT NULL,
      payload jsonb NOT NULL,
      expires_at bigint NOT NULL
    );
    CREATE INDEX accounts_one_time_tokens_expiry ON accounts_one_time_tokens (expires_at);
    CREATE TABLE accounts_attempt_windows (digest text PRIMARY KEY, start bigint NOT NULL, count integer NOT NULL);
    CREATE INDEX accounts_attempt_windows_start ON accounts_attempt_windows (start);
    CREATE TABLE accounts_audit_log (
      organization_id text NOT NULL,
      id text NOT NULL,
      entry jsonb NOT NULL,
      PRIMARY KEY (organization_id, id)
    );
    CREATE TABLE accounts_outbox (
      id text PRIMARY KEY,
      recipient text NOT NULL,
      message jsonb NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at bigint NOT NULL DEFAULT 0
    );
  `,
  },
]

// Rows removed per statement by the sweeps of expired records, so none holds its locks long.
const SWEEP_BATCH = 1000

/** Removes the rows of `table` (keyed by `key`) whose expires_at has passed, a batch at a time. */
export async function removeExpired(sql: Sql, table: string, key: string, now: number): Promise<void> {
  let removed = SWEEP_BATCH
  while (removed === SWEEP_BATCH) {
    removed =
      (await sql.query(`DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE expires_at <= $1 LIMIT ${SWEEP_BATCH})`, [now])).rowCount ?? 0
  }
}
