// The Governor's tables in PostgreSQL. Records are kept whole as json (the text as written, so an
// audit record is read back exactly as it was hashed), beside the columns lists filter on. Ids
// compare in the "C" collation: ulids sort by time there, as they do in LMDB.
import type { Migration } from '../../../../proxy/stores/database.ts'

export const governorMigrations: readonly Migration[] = [
  {
    version: 1,
    sql: `
    CREATE TABLE governor_audit (
      project_id text NOT NULL,
      seq bigint NOT NULL,
      id text COLLATE "C" NOT NULL UNIQUE,
      record json NOT NULL,
      PRIMARY KEY (project_id, seq)
    );
    CREATE TABLE governor_audit_heads (
      project_id text PRIMARY KEY,
      seq bigint NOT NULL,
      id text NOT NULL,
      hash text NOT NULL
    );
    CREATE TABLE governor_violations (
      project_id text NOT NULL,
      id text COLLATE "C" NOT NULL,
      status text NOT NULL,
      type text NOT NULL,
      severity text NOT NULL,
      record json NOT NULL,
      PRIMARY KEY (project_id, id)
    );
    CREATE TABLE governor_alerts (
      project_id text NOT NULL,
      id text COLLATE "C" NOT NULL,
      status text NOT NULL,
      type text NOT NULL,
      severity text NOT NULL,
      record json NOT NULL,
      PRIMARY KEY (project_id, id)
    );
    CREATE TABLE governor_cases (
      project_id text NOT NULL,
      id text COLLATE "C" NOT NULL,
      status text NOT NULL,
      severity text NOT NULL,
      record json NOT NULL,
      PRIMARY KEY (project_id, id)
    );
    CREATE TABLE governor_models (
      project_id text NOT NULL,
      id text COLLATE "C" NOT NULL,
      provider text NOT NULL,
      model text NOT NULL,
      approval_status text NOT NULL,
      risk text NOT NULL,
      record json NOT NULL,
      PRIMARY KEY (project_id, id),
      UNIQUE (project_id, provider, model)
    );
    CREATE TABLE governor_open_counts (
      project_id text PRIMARY KEY,
      counts json NOT NULL
    );
  `,
  },
]
