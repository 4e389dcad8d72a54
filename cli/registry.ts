// The registry a command works on: the one the gateway reads, in PostgreSQL when DATABASE_URL is
// set (the change reaches every running gateway by its notification), else in the LMDB store
// (safe while a gateway runs: LMDB locks across processes).
import pino from 'pino'
import { systemClock } from '../proxy/clock.ts'
import { openDatabase } from '../proxy/database.ts'
import { openStore } from '../proxy/store.ts'
import { openRegistry } from '../plugins/auth/open-registry.ts'
import type { AuthRegistry } from '../plugins/auth/registry.ts'

export interface CliStore {
  readonly dataDir: string
  readonly databaseUrl: string | undefined
  readonly secret: string | undefined
}

export async function withRegistry<T>(where: CliStore, work: (registry: AuthRegistry) => Promise<T>): Promise<T> {
  if (where.databaseUrl !== undefined) {
    const log = pino({ level: 'silent' })
    const database = openDatabase(where.databaseUrl, log, { maxConnections: 2 })
    try {
      const registry = await openRegistry({ database: database.forPlugin('auth'), log }, where.secret, systemClock, false)
      return await work(registry)
    } finally {
      await database.close()
    }
  }
  const store = openStore(where.dataDir)
  try {
    return await work(await openRegistry({ store: store.forPlugin('auth') }, where.secret, systemClock, false))
  } finally {
    await store.flushed()
    await store.close()
  }
}
