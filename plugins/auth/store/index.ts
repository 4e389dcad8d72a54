// The one place the auth plugin's backend is chosen: PostgreSQL when DATABASE_URL is set, so every
// gateway on that database shares the projects and keys, else the local LMDB.
import type { Logger } from 'pino'
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../../proxy/stores/database.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'
import { createPostgresRegistry, loadSharedSecret, whileEmpty } from './postgres/registry.ts'
import { AUTH_MIGRATIONS } from './postgres/schema.ts'
import { createRegistry, loadSecret } from './lmdb.ts'
import type { AuthRegistry } from './registry.ts'

export type RegistryHome = { readonly database: PluginDatabase; readonly log: Logger } | { readonly database?: undefined; readonly store: PluginStore }

/** `follow`: keep up with other gateways' writes for as long as it is open (a gateway), or read once (a command). */
export async function openRegistry(home: RegistryHome, secret: string | undefined, clock: Clock, follow: boolean): Promise<AuthRegistry> {
  if (home.database === undefined) return createRegistry(home.store, await loadSecret(home.store, secret), clock)
  await home.database.migrate(AUTH_MIGRATIONS)
  return createPostgresRegistry(home.database, await loadSharedSecret(home.database, secret), clock, { follow, log: home.log })
}

/**
 * Runs `work` while no project is stored, and on a shared database with every other gateway
 * starting at the same moment held off, so only one of them does it.
 */
export function whileNoProject<T>(home: RegistryHome, work: () => Promise<T>): Promise<T | undefined> {
  return home.database === undefined ? work() : whileEmpty(home.database, work)
}
