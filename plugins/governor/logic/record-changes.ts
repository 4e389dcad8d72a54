// What a new case and an edited registry entry hold: decided here once, whichever store keeps them.
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'
import { highestSeverity } from './verdict/levels.ts'
import type { ModelChanges, NewCase, NewModel } from '../store/records.ts'
import type { Case, ModelEntry, Violation } from '../store/types.ts'

export function unknownViolation(violationId: string): InvalidRequestError {
  return new InvalidRequestError('Invalid request: unknown violation', `No violation ${violationId} in this project.`, [
    { path: 'violationIds', message: `no violation ${violationId} in this project` },
  ])
}

export function newCase(id: string, projectId: string, input: NewCase, violations: readonly Violation[], at: string): Case {
  return {
    id,
    projectId,
    title: input.title,
    status: 'open',
    severity: highestSeverity(violations.map((v) => v.severity)) ?? 'LOW',
    violationIds: violations.map((v) => v.id),
    notes: input.note === undefined ? [] : [{ at, text: input.note }],
    createdAt: at,
    updatedAt: at,
    resolvedAt: null,
  }
}

/** A model registered by hand, as either store keeps it. */
export function newModelEntry(id: string, projectId: string, input: NewModel, at: string): ModelEntry {
  return {
    id,
    projectId,
    provider: input.provider,
    model: input.model,
    riskClassification: input.riskClassification,
    approvalStatus: input.approvalStatus,
    source: 'manual',
    notes: input.notes ?? null,
    createdAt: at,
    updatedAt: at,
  }
}

export function editedModel(current: ModelEntry, changes: ModelChanges, at: string): ModelEntry {
  return {
    ...current,
    riskClassification: changes.riskClassification ?? current.riskClassification,
    approvalStatus: changes.approvalStatus ?? current.approvalStatus,
    notes: changes.notes === undefined ? current.notes : changes.notes,
    updatedAt: at,
  }
}
