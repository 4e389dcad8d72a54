// The webhooks plugin's tables in PostgreSQL. Each webhook and delivery is kept whole, as in
// LMDB, beside the columns that find and order them: a delivery's due time (the next attempt, or
// the end of a claim's lease) and finish time, and its claim token. A delivery is json, not
// jsonb, so its event keeps its key order and every attempt sends the same bytes. Times are clock
// milliseconds (bigint). Deleting a webhook deletes its deliveries.
import type { Migration } from '../../../../proxy/stores/database.ts'

export const webhookMigrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
    CREATE TABLE webhooks_hooks (
      id text PRIMARY KEY,
      project_id text NOT NULL,
      record jsonb NOT NULL
    );
    CREATE INDEX webhooks_hooks_project ON webhooks_hooks (project_id, id);
    CREATE TABLE webhooks_deliveries (
      id text PRIMARY KEY,
      webhook_id text NOT NULL REFERENCES webhooks_hooks (id) ON DELETE CASCADE,
      due_at bigint,
      finished_at bigint,
      claim text,
      record json NOT NULL
    );
    CREATE INDEX webhooks_deliveries_due ON webhooks_deliveries (due_at, id) WHERE due_at IS NOT NULL;
    CREATE INDEX webhooks_deliveries_finished ON webhooks_deliveries (finished_at) WHERE finished_at IS NOT NULL;
    CREATE INDEX webhooks_deliveries_webhook ON webhooks_deliveries (webhook_id, id);
    CREATE TABLE webhooks_meta (
      entry text PRIMARY KEY,
      value text NOT NULL
    );
  `,
  },
]
