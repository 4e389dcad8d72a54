// The models registry in PostgreSQL: one entry per project, provider and model (a unique key, so
// gateways registering a model's first use at once keep one entry), edited by a compliance officer.
import type { Clock } from '../../../../proxy/kit/clock.ts'
import type { PluginDatabase, Sql } from '../../../../proxy/stores/database.ts'
import { ConflictError, NotFoundError } from '../../../../proxy/pipeline/errors.ts'
import type { ModelsRegistry } from '../records.ts'
import type { NewId } from '../../ids.ts'
import type { ModelEntry } from '../types.ts'
import { pageOfRows } from './page.ts'
import { editedModel, newModelEntry } from '../../logic/record-changes.ts'

/** Adds the entry unless the project already has its provider and model; true when it was added. */
export async function insertModel(sql: Sql, entry: ModelEntry): Promise<boolean> {
  const added = await sql.query(
    `INSERT INTO governor_models (project_id, id, provider, model, approval_status, risk, record) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (project_id, provider, model) DO NOTHING`,
    [entry.projectId, entry.id, entry.provider, entry.model, entry.approvalStatus, entry.riskClassification, JSON.stringify(entry)],
  )
  return added.rowCount === 1
}

export function postgresModelsRegistry(database: PluginDatabase, clock: Clock, newId: NewId): ModelsRegistry {
  const find = async (sql: Sql, projectId: string, id: string, lock: boolean): Promise<ModelEntry> => {
    const found = await sql.query<{ record: ModelEntry }>(`SELECT record FROM governor_models WHERE project_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
      projectId,
      id,
    ])
    const entry = found.rows[0]?.record
    if (entry === undefined) throw new NotFoundError(`No model ${id} in this project's registry.`)
    return entry
  }
  const iso = () => new Date(clock.now()).toISOString()
  return {
    list: (projectId, query, filter) =>
      pageOfRows<ModelEntry>(database, 'governor_models', projectId, 'model', query, {
        approval_status: filter.status,
        risk: filter.risk,
        provider: filter.provider,
      }),
    get: (projectId, id) => find(database, projectId, id, false),
    async registered(projectId, provider, model) {
      const found = await database.query<{ record: ModelEntry }>('SELECT record FROM governor_models WHERE project_id = $1 AND provider = $2 AND model = $3', [
        projectId,
        provider,
        model,
      ])
      return found.rows[0]?.record
    },
    async create(projectId, input) {
      const entry = newModelEntry(newId('model'), projectId, input, iso())
      if (await insertModel(database, entry)) return entry
      const existing = await database.query<{ id: string }>('SELECT id FROM governor_models WHERE project_id = $1 AND provider = $2 AND model = $3', [
        projectId,
        input.provider,
        input.model,
      ])
      throw new ConflictError(`The registry already holds ${input.provider}/${input.model} as ${existing.rows[0]?.id ?? 'another entry'}.`)
    },
    update(projectId, id, changes) {
      return database.transaction(async (sql) => {
        const current = await find(sql, projectId, id, true)
        const next = editedModel(current, changes, iso())
        await sql.query('UPDATE governor_models SET approval_status = $3, risk = $4, record = $5 WHERE project_id = $1 AND id = $2', [
          projectId,
          id,
          next.approvalStatus,
          next.riskClassification,
          JSON.stringify(next),
        ])
        return next
      })
    },
    async remove(projectId, id) {
      const removed = await database.query<{ record: ModelEntry }>('DELETE FROM governor_models WHERE project_id = $1 AND id = $2 RETURNING record', [
        projectId,
        id,
      ])
      const entry = removed.rows[0]?.record
      if (entry === undefined) throw new NotFoundError(`No model ${id} in this project's registry.`)
      return entry
    },
  }
}
