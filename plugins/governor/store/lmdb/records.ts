// The Governor's records in the LMDB store of one host (and its worker processes).
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { createAuditTrail } from './audit-trail.ts'
import { lmdbAuditChain } from './audit-chain.ts'
import { createAlerts } from './alerts.ts'
import { createCases } from './cases.ts'
import { openGovernorDatabases } from './databases.ts'
import type { GovernorRecords } from '../records.ts'
import type { NewId } from '../../ids.ts'
import { createModelsRegistry } from './models-registry.ts'
import { createViolations } from './violations.ts'

export function lmdbGovernorRecords(store: PluginStore, clock: Clock, newId: NewId, events: EventOutbox): GovernorRecords {
  const dbs = openGovernorDatabases(store)
  return {
    trail: createAuditTrail(store, dbs, events),
    chain: lmdbAuditChain(store),
    violations: createViolations(store, dbs, clock, events),
    alerts: createAlerts(store, dbs, clock, events),
    cases: createCases(store, dbs, clock, newId, events),
    models: createModelsRegistry(store, dbs, clock, newId),
  }
}
