// The idempotency records in PostgreSQL. A record in flight names the gateway running it (its
// owner); an owner's lease says until when that gateway is known alive, so any gateway may take
// over a run whose owner stopped renewing. Times are clock milliseconds (bigint), as in LMDB.
import type { Migration } from '../../../proxy/stores/database.ts'

export const idempotencyMigrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
    CREATE TABLE idempotency_records (
      project_id text NOT NULL,
      key text NOT NULL,
      hash text NOT NULL,
      created_at bigint NOT NULL,
      request_id text NOT NULL,
      state text NOT NULL CHECK (state IN ('in_flight', 'done')),
      owner text,
      answer jsonb,
      PRIMARY KEY (project_id, key)
    );
    CREATE INDEX idempotency_records_created_at ON idempotency_records (created_at);
    CREATE INDEX idempotency_records_in_flight_owner ON idempotency_records (owner) WHERE state = 'in_flight';
    CREATE TABLE idempotency_owners (
      owner text PRIMARY KEY,
      expires_at bigint NOT NULL
    );
  `,
  },
  {
    version: 2,
    // json keeps the answer's text as written; jsonb refuses a text holding \u0000, which a model may send.
    sql: 'ALTER TABLE idempotency_records ALTER COLUMN answer TYPE json USING answer::json',
  },
]
