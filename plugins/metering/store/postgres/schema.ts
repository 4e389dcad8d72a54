// Metering's tables in PostgreSQL. Money in integer micro-dollars (bigint), as in LMDB. A hold
// belongs to a gateway (its owner), and an owner's lease says until when it is known alive: any
// gateway releases the holds and settles the checkpointed streams of an owner whose lease ran out.
import type { Migration } from '../../../../proxy/stores/database.ts'

export const meteringMigrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
    CREATE TABLE metering_budgets (
      project_id text NOT NULL,
      month text NOT NULL,
      used_micros bigint NOT NULL DEFAULT 0,
      reserved_micros bigint NOT NULL DEFAULT 0,
      overage_micros bigint NOT NULL DEFAULT 0,
      notified integer[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (project_id, month)
    );
    CREATE TABLE metering_owners (
      owner text PRIMARY KEY,
      expires_at bigint NOT NULL
    );
    CREATE TABLE metering_holds (
      request_id text PRIMARY KEY,
      project_id text NOT NULL,
      month text NOT NULL,
      micros bigint NOT NULL,
      owner text NOT NULL
    );
    CREATE INDEX metering_holds_owner ON metering_holds (owner);
    CREATE TABLE metering_ledger (
      id text PRIMARY KEY,
      project_id text NOT NULL,
      month text NOT NULL,
      entry jsonb NOT NULL
    );
    CREATE INDEX metering_ledger_project_month ON metering_ledger (project_id, month);
    CREATE TABLE metering_model_days (
      project_id text NOT NULL,
      day text NOT NULL,
      model text NOT NULL,
      requests bigint NOT NULL,
      tokens bigint NOT NULL,
      cost_micros bigint NOT NULL,
      hits bigint NOT NULL,
      misses bigint NOT NULL,
      unpriced bigint NOT NULL,
      PRIMARY KEY (project_id, day, model)
    );
    CREATE TABLE metering_checkpoints (
      request_id text PRIMARY KEY,
      owner text NOT NULL,
      limit_micros bigint NOT NULL,
      entry jsonb NOT NULL
    );
    CREATE INDEX metering_checkpoints_owner ON metering_checkpoints (owner);
  `,
  },
  {
    version: 2,
    sql: `
    CREATE TABLE metering_spend_days (
      project_id text NOT NULL,
      day text NOT NULL,
      dimension text NOT NULL,
      value text NOT NULL,
      requests bigint NOT NULL,
      tokens bigint NOT NULL,
      cost_micros bigint NOT NULL,
      PRIMARY KEY (project_id, dimension, day, value)
    );
  `,
  },
  {
    version: 3,
    // A key with a budget of its own has a month row too, under its id in project_id; its holds name it.
    sql: 'ALTER TABLE metering_holds ADD COLUMN key_id text;',
  },
  {
    version: 4,
    // Whether the lease its hold was carved from has shrunk by it: an entry recorded first by a
    // settlement that carried no lease (another gateway's) leaves that to its own gateway's. Rows
    // from before were settled with their leases.
    sql: 'ALTER TABLE metering_ledger ADD COLUMN lease_shrunk boolean NOT NULL DEFAULT true;',
  },
]
