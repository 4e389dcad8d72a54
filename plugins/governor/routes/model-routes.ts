// /api/compliance/models: the models registry.
import { z } from 'zod'
import type { ProjectRouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'
import type { ModelsRegistry } from '../store/records.ts'
import { modelAnswer, pageOf } from './answers.ts'
import { editableRoutes, pageFields, pageQueryOf, parseQuery, PROJECT_KEYS } from './list-query.ts'
import { oneOf } from '../../../proxy/http/validate.ts'

const RISKS = ['unclassified', 'low', 'medium', 'high'] as const
const APPROVALS = ['pending', 'approved', 'rejected'] as const
const risk = oneOf('riskClassification', RISKS)
const approval = oneOf('approvalStatus', APPROVALS)
const notes = z.string({ error: 'notes must be a string' }).max(2000, 'notes may hold at most 2000 characters')

const newModelBody = z.strictObject({
  provider: z.string({ error: 'provider is required' }).trim().min(1, 'provider must not be empty').max(64, 'provider may hold at most 64 characters'),
  model: z.string({ error: 'model is required' }).trim().min(1, 'model must not be empty').max(128, 'model may hold at most 128 characters'),
  riskClassification: risk.default('unclassified'),
  approvalStatus: approval.default('pending'),
  notes: notes.optional(),
})

const modelChangesBody = z
  .strictObject({ riskClassification: risk.optional(), approvalStatus: approval.optional(), notes: notes.nullable().optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), { error: 'send riskClassification, approvalStatus or notes' })

const listQuery = z.strictObject({
  ...pageFields,
  status: oneOf('status', APPROVALS).optional(),
  risk: oneOf('risk', RISKS).optional(),
  provider: z.string().min(1).max(64).optional(),
})

export function modelRoutes(models: ModelsRegistry): ProjectRouteSpec[] {
  return [
    {
      keyTypes: PROJECT_KEYS,
      writes: false,
      method: 'GET',
      path: '/compliance/models',
      name: 'compliance_models',
      docs: { query: listQuery, response: pageOf(modelAnswer) },
      async handle(ctx, project) {
        const query = parseQuery(listQuery, ctx)
        return Reply.json(await models.list(project.id, pageQueryOf(query, 'model'), query))
      },
    },
    ...editableRoutes('/compliance/models', 'compliance_model', models, {
      create: newModelBody,
      update: modelChangesBody,
      item: modelAnswer,
      createErrors: [409],
    }),
  ]
}
