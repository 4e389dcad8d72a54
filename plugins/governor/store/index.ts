// Where the Governor's records live: with DATABASE_URL in PostgreSQL, shared (with the events of
// their changes) by every gateway on it; otherwise in the LMDB store of one host.
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../../proxy/stores/database.ts'
import type { EventOutbox, SharedEventOutbox } from '../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../proxy/stores/store.ts'
import type { NewId } from '../ids.ts'
import { lmdbAuditChain } from './lmdb/audit-chain.ts'
import { lmdbGovernorRecords } from './lmdb/records.ts'
import { postgresAuditChain } from './postgres/audit-trail.ts'
import { postgresGovernorRecords } from './postgres/records.ts'
import { governorMigrations } from './postgres/schema.ts'
import type { AuditChain, GovernorRecords } from './records.ts'

interface RecordsDeps {
  readonly store: PluginStore
  readonly database: PluginDatabase | undefined
  readonly sharedEvents: SharedEventOutbox | undefined
  readonly events: EventOutbox
  readonly clock: Clock
  readonly newId: NewId
}

export async function openGovernorRecords({ store, database, sharedEvents, events, clock, newId }: RecordsDeps): Promise<GovernorRecords> {
  return database === undefined ? lmdbGovernorRecords(store, clock, newId, events) : await postgresGovernorRecords(database, sharedEvents!, clock, newId)
}

/** The audit chain alone, for its check outside a running gateway. */
export async function openAuditChain(backend: { readonly database: PluginDatabase } | { readonly store: PluginStore }): Promise<AuditChain> {
  if ('store' in backend) return lmdbAuditChain(backend.store)
  await backend.database.migrate(governorMigrations)
  return postgresAuditChain(backend.database)
}
