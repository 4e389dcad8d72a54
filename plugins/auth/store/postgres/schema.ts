// The auth plugin's tables in PostgreSQL. Records are kept whole as JSON, as LMDB keeps them, so
// both stores hold the same shape; the columns beside them are what is looked up or joined on.
import type { Migration } from '../../../../proxy/stores/database.ts'

export const AUTH_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
    CREATE TABLE auth_meta (name text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE auth_projects (id text PRIMARY KEY, record jsonb NOT NULL);
    CREATE TABLE auth_keys (
      hash text PRIMARY KEY,
      id text NOT NULL UNIQUE,
      project_id text NOT NULL REFERENCES auth_projects (id),
      record jsonb NOT NULL
    );
    CREATE INDEX auth_keys_project ON auth_keys (project_id);
    CREATE TABLE auth_key_last_used (id text PRIMARY KEY REFERENCES auth_keys (id) ON DELETE CASCADE, at timestamptz NOT NULL);
  `,
  },
]
