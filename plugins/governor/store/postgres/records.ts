// The Governor's records in PostgreSQL (DATABASE_URL), shared by every gateway on it; their
// events go to the shared outbox in the transaction of each change.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase } from '../../../../proxy/stores/database.ts'
import type { SharedEventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { GovernorRecords } from '../records.ts'
import type { NewId } from '../../ids.ts'
import { postgresAlerts } from './alerts.ts'
import { postgresAuditChain, postgresAuditTrail } from './audit-trail.ts'
import { postgresCases } from './cases.ts'
import { postgresModelsRegistry } from './models-registry.ts'
import { governorMigrations } from './schema.ts'
import { postgresViolations } from './violations.ts'

export async function postgresGovernorRecords(database: PluginDatabase, events: SharedEventOutbox, clock: Clock, newId: NewId): Promise<GovernorRecords> {
  await database.migrate(governorMigrations)
  return {
    trail: postgresAuditTrail(database, events),
    chain: postgresAuditChain(database),
    violations: postgresViolations(database, events, clock),
    alerts: postgresAlerts(database, events, clock),
    cases: postgresCases(database, events, clock, newId),
    models: postgresModelsRegistry(database, clock, newId),
  }
}
