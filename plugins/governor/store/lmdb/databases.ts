// The Governor's databases in its own store namespace. Records of a project are keyed by
// [projectId, id], so a project's records are one key range and another project's are never
// reached by id alone; ids are ulids, so a range is also in time order.
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { OpenCounts } from '../../logic/compliance-score.ts'
import type { Alert, AuditHead, AuditRecord, Case, ModelEntry, Violation } from '../types.ts'

export type ProjectKey = [projectId: string, id: string]
export type AuditKey = [projectId: string, seq: number]
export type ModelIndexKey = [projectId: string, provider: string, model: string]

export function openGovernorDatabases(store: PluginStore) {
  return {
    audit: store.open<AuditRecord>('audit'),
    auditIds: store.open<AuditKey>('audit-ids'),
    auditHeads: store.open<AuditHead>('audit-heads'),
    violations: store.open<Violation>('violations'),
    alerts: store.open<Alert>('alerts'),
    cases: store.open<Case>('cases'),
    models: store.open<ModelEntry>('models'),
    modelIndex: store.open<string>('model-index'),
    /** Open violations per severity, per project: the score compliance.score_changed announces. */
    openCounts: store.open<OpenCounts>('open-violation-counts'),
  }
}

export type GovernorDatabases = ReturnType<typeof openGovernorDatabases>
