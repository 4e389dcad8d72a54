// GET /v1/models and /v1/models/{id} in OpenAI's shape: the catalog's models and the tier names,
// every one of which a gateway key may ask for.
import { NotFoundError } from '../../errors.ts'
import { modelListSchema, modelObjectSchema } from './answers.ts'
import { MODEL_NAMES, MODELS, TIER_MODELS, type ModelName, type Quality } from '../../models.ts'
import { Reply } from '../../reply.ts'
import type { Route } from '../../routes.ts'

// Release dates (unix seconds) of the versions the catalog's names stand for.
const CREATED: Readonly<Record<ModelName, number>> = {
  'gpt-4o': 1_715_558_400,
  'gpt-4o-mini': 1_721_260_800,
  'gpt-4-turbo': 1_712_620_800,
  'claude-3-opus-20240229': 1_709_164_800,
  'claude-3-sonnet-20240229': 1_709_164_800,
  'claude-3-haiku-20240307': 1_709_769_600,
  'mistral-large-latest': 1_731_888_000,
  'mistral-medium-latest': 1_746_576_000,
}

interface ModelObject {
  readonly id: string
  readonly object: 'model'
  readonly created: number
  readonly owned_by: string
}

const MODEL_OBJECTS: readonly ModelObject[] = [
  ...MODEL_NAMES.map((name): ModelObject => ({ id: name, object: 'model', created: CREATED[name], owned_by: MODELS[name].provider })),
  // A tier is the gateway's own name for the model it routes to.
  ...(Object.entries(TIER_MODELS) as [Quality, ModelName][]).map(([tier, model]): ModelObject => ({ id: tier, object: 'model', created: CREATED[model], owned_by: 'tollgate' })),
]

const LIST = { object: 'list', data: MODEL_OBJECTS }

export const openAiModelRoutes: readonly Route[] = [
  {
    method: 'GET', path: '/v1/models', name: 'openai_models', kind: 'keyed', keyTypes: ['sk'], stream: false, docs: { response: modelListSchema },
    handle: () => Reply.json(LIST),
  },
  {
    method: 'GET', path: '/v1/models/:id', name: 'openai_model', kind: 'keyed', keyTypes: ['sk'], stream: false, docs: { response: modelObjectSchema },
    handle: (ctx) => {
      const model = MODEL_OBJECTS.find((candidate) => candidate.id === ctx.params.id)
      return model === undefined
        ? Reply.error(new NotFoundError(`The model ${ctx.params.id} does not exist; GET /v1/models lists the models and tiers.`))
        : Reply.json(model)
    },
  },
]
