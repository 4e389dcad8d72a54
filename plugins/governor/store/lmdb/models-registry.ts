// The models registry in LMDB: the models a project uses, with provider, risk classification and
// approval status. Entries appear on a model's first governed use (audit-trail.ts) and are edited
// here; one entry per provider and model.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { ConflictError, NotFoundError } from '../../../../proxy/pipeline/errors.ts'
import type { PluginStore } from '../../../../proxy/stores/store.ts'
import type { GovernorDatabases, ModelIndexKey } from './databases.ts'
import type { ModelsRegistry } from '../records.ts'
import type { NewId } from '../../ids.ts'
import { pageOf } from '../page.ts'
import type { ModelEntry } from '../types.ts'
import { editedModel, newModelEntry } from '../../logic/record-changes.ts'

export function createModelsRegistry(store: PluginStore, dbs: GovernorDatabases, clock: Clock, newId: NewId): ModelsRegistry {
  const find = (projectId: string, id: string): ModelEntry => {
    const entry = dbs.models.get([projectId, id])
    if (entry === undefined) throw new NotFoundError(`No model ${id} in this project's registry.`)
    return entry
  }
  const iso = () => new Date(clock.now()).toISOString()
  return {
    async list(projectId, query, filter) {
      return pageOf(
        dbs.models,
        projectId,
        'model',
        query,
        (m) =>
          (filter.status === undefined || m.approvalStatus === filter.status) &&
          (filter.risk === undefined || m.riskClassification === filter.risk) &&
          (filter.provider === undefined || m.provider === filter.provider),
      )
    },
    get: async (projectId, id) => find(projectId, id),
    async registered(projectId, provider, model) {
      const id = dbs.modelIndex.get([projectId, provider, model] satisfies ModelIndexKey)
      return id === undefined ? undefined : dbs.models.get([projectId, id])
    },
    create(projectId, input) {
      return store.transaction(() => {
        const indexKey: ModelIndexKey = [projectId, input.provider, input.model]
        const existing = dbs.modelIndex.get(indexKey)
        if (existing !== undefined) throw new ConflictError(`The registry already holds ${input.provider}/${input.model} as ${existing}.`)
        const entry = newModelEntry(newId('model'), projectId, input, iso())
        dbs.models.put([projectId, entry.id], entry)
        dbs.modelIndex.put(indexKey, entry.id)
        return entry
      })
    },
    update(projectId, id, changes) {
      return store.transaction(() => {
        const current = find(projectId, id)
        const next = editedModel(current, changes, iso())
        dbs.models.put([projectId, id], next)
        return next
      })
    },
    remove(projectId, id) {
      return store.transaction(() => {
        const current = find(projectId, id)
        dbs.models.remove([projectId, id])
        dbs.modelIndex.remove([projectId, current.provider, current.model] satisfies ModelIndexKey)
        return current
      })
    },
  }
}
