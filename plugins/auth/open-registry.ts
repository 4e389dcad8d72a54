// The registry on the store this gateway is configured with: PostgreSQL when DATABASE_URL is
// set, so every gateway on that database shares the projects and keys, else the local LMDB.
import type { Logger } from 'pino'
import type { Clock } from '../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../proxy/stores/database.ts'
import type { PluginStore } from '../../proxy/stores/store.ts'
import { createPostgresRegistry, loadSharedSecret } from './postgres-registry.ts'
import { AUTH_MIGRATIONS } from './postgres-schema.ts'
import { createRegistry, loadSecret, type AuthRegistry } from './registry.ts'

type RegistryHome =
  | { readonly database: PluginDatabase; readonly log: Logger }
  | { readonly database?: undefined; readonly store: PluginStore }

/** `follow`: keep up with other gateways' writes for as long as it is open (a gateway), or read once (a command). */
export async function openRegistry(home: RegistryHome, secret: string | undefined, clock: Clock, follow: boolean): Promise<AuthRegistry> {
  if (home.database === undefined) return createRegistry(home.store, await loadSecret(home.store, secret), clock)
  await home.database.migrate(AUTH_MIGRATIONS)
  return createPostgresRegistry(home.database, await loadSharedSecret(home.database, secret), clock, { follow, log: home.log })
}
