// Where the accounts plugin keeps its records: this gateway's LMDB store, or PostgreSQL when
// DATABASE_URL is set, so that every gateway on that database knows the same people, sessions and
// signing key. Chosen here only, once at setup; the routes see only the interfaces.
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import type { AccountsConfig } from '../schema.ts'
import type { AccountStore } from './account-store.ts'
import { openLmdbAccountStore } from './lmdb/account-store.ts'
import { openPostgresAccountStore } from './postgres/account-store.ts'

export async function openAccountStore(deps: PluginDeps, config: AccountsConfig, refreshLifetimeMs: number): Promise<AccountStore> {
  const { store, database, clock, log } = deps
  return database === undefined
    ? openLmdbAccountStore(store, clock, config, refreshLifetimeMs)
    : openPostgresAccountStore(database, clock, config, refreshLifetimeMs, log)
}
