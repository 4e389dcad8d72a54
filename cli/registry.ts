// The registry a command works on: the one the gateway reads, in PostgreSQL when DATABASE_URL is
// set (the change reaches every running gateway by its notification), else in the LMDB store
// (safe while a gateway runs: LMDB locks across processes). Beside it, the organizations people
// made in the dashboard, for the commands that attach projects to them.
import pino from 'pino'
import { systemClock } from '../proxy/kit/clock.ts'
import { openDatabase } from '../proxy/stores/database.ts'
import { openStore } from '../proxy/stores/store.ts'
import { openRegistry } from '../plugins/auth/store/index.ts'
import type { AuthRegistry } from '../plugins/auth/store/registry.ts'
import { openOrganizationRecords } from '../plugins/accounts/store/lmdb/organizations.ts'
import type { Organization } from '../plugins/accounts/store/organizations.ts'
import { ACCOUNTS_MIGRATIONS } from '../plugins/accounts/store/postgres/schema.ts'
import { postgresOrganizations } from '../plugins/accounts/store/postgres/users.ts'

export interface CliStore {
  readonly dataDir: string
  readonly databaseUrl: string | undefined
  readonly secret: string | undefined
}

export interface OrganizationLookup {
  get(id: string): Promise<Organization | undefined>
  list(): Promise<Organization[]>
}

export async function withRegistry<T>(where: CliStore, work: (registry: AuthRegistry, organizations: OrganizationLookup) => Promise<T>): Promise<T> {
  if (where.databaseUrl !== undefined) {
    const log = pino({ level: 'silent' })
    const database = openDatabase(where.databaseUrl, log, { maxConnections: 2 })
    try {
      const registry = await openRegistry({ database: database.forPlugin('auth'), log }, where.secret, systemClock, false)
      const accounts = database.forPlugin('accounts')
      // Only the commands that name an organization make sure the accounts' tables exist.
      let migrated: Promise<void> | undefined
      const organizations = async () => {
        await (migrated ??= accounts.migrate(ACCOUNTS_MIGRATIONS))
        return postgresOrganizations(accounts)
      }
      return await work(registry, {
        get: async (id) => (await organizations()).get(id),
        list: async () => (await organizations()).list(),
      })
    } finally {
      await database.close()
    }
  }
  const store = openStore(where.dataDir)
  try {
    const organizations = openOrganizationRecords(store.forPlugin('accounts'))
    return await work(await openRegistry({ store: store.forPlugin('auth') }, where.secret, systemClock, false), {
      get: async (id) => organizations.get(id),
      list: async () => organizations.list(),
    })
  } finally {
    await store.flushed()
    await store.close()
  }
}
