// A project's audit chain as LMDB holds it, read a page at a time for its check.
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import { openGovernorDatabases, type AuditKey } from './databases.ts'
import type { AuditChain } from '../records.ts'

export function lmdbAuditChain(store: PluginStore): AuditChain {
  const dbs = openGovernorDatabases(store)
  return {
    async links(projectId, afterSeq, throughSeq, limit) {
      const range = dbs.audit.getRange({ start: [projectId, afterSeq + 1], end: [projectId, throughSeq + 1], limit })
      return [...range].map(({ key, value }) => ({ seq: (key as AuditKey)[1], value: value as unknown }))
    },
    async head(projectId) {
      return dbs.auditHeads.get(projectId)
    },
  }
}
