// Appends audit records to a project's hash chain in LMDB. The record, its violations, its alert,
// their events and a model's first registration commit in one transaction, which also serializes
// the chain head against other processes sharing the store.
import type { EventOutbox } from '../../../../proxy/stores/events/index.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { AuditKey, GovernorDatabases, ModelIndexKey } from './databases.ts'
import { alertData, violationData } from '../../logic/event-data.ts'
import type { AuditTrail } from '../records.ts'
import { countOpenViolations } from './open-counts.ts'
import type { AuditRecord } from '../types.ts'
import { GENESIS_HASH, hashOfRecord } from '../../logic/audit/chain-hash.ts'

export function createAuditTrail(store: PluginStore, dbs: GovernorDatabases, events: EventOutbox): AuditTrail {
  return {
    append(entry) {
      return store.transaction(() => {
        const { draft } = entry
        const head = dbs.auditHeads.get(draft.projectId)
        const chained = { ...draft, seq: (head?.seq ?? 0) + 1, prevHash: head?.hash ?? GENESIS_HASH }
        const record: AuditRecord = { ...chained, hash: hashOfRecord(chained) }
        dbs.audit.put([draft.projectId, record.seq] satisfies AuditKey, record)
        dbs.auditIds.put(record.id, [draft.projectId, record.seq] satisfies AuditKey)
        dbs.auditHeads.put(draft.projectId, { seq: record.seq, id: record.id, hash: record.hash })
        for (const violation of entry.violations) {
          dbs.violations.put([violation.projectId, violation.id], violation)
          events.emit('violation.detected', violation.projectId, violationData(violation))
        }
        countOpenViolations(
          dbs,
          events,
          draft.projectId,
          entry.violations.map((v) => ({ severity: v.severity, delta: 1 as const })),
        )
        if (entry.alert !== undefined) {
          dbs.alerts.put([entry.alert.projectId, entry.alert.id], entry.alert)
          events.emit('alert.created', entry.alert.projectId, alertData(entry.alert))
        }
        const model = entry.model
        if (model !== undefined) {
          const indexKey: ModelIndexKey = [model.projectId, model.provider, model.model]
          if (dbs.modelIndex.get(indexKey) === undefined) {
            dbs.models.put([model.projectId, model.id], model)
            dbs.modelIndex.put(indexKey, model.id)
          }
        }
        return record
      })
    },
    async get(projectId, auditId) {
      const key = dbs.auditIds.get(auditId)
      if (key === undefined || key[0] !== projectId) return undefined
      return dbs.audit.get(key)
    },
  }
}
