// GET /v1/models and /v1/models/{id} in OpenAI's shape: the catalog's models and the tier names,
// every one of which a gateway key may ask for.
import { modelCatalog, type ModelCatalog } from '../../catalog.ts'
import { NotFoundError } from '../../errors.ts'
import { modelListSchema, modelObjectSchema } from './answers.ts'
import { QUALITIES } from '../../models.ts'
import { Reply } from '../../reply.ts'
import type { Route } from '../../routes.ts'

interface ModelObject {
  readonly id: string
  readonly object: 'model'
  readonly created: number
  readonly owned_by: string
}

interface ModelList {
  readonly object: 'list'
  readonly data: readonly ModelObject[]
}

function listOf(catalog: ModelCatalog): ModelList {
  const created = (name: string) => catalog.info(name).created
  return {
    object: 'list',
    data: [
      ...catalog.names.map((name): ModelObject => ({ id: name, object: 'model', created: created(name), owned_by: catalog.info(name).provider })),
      // A tier is the gateway's own name for the model it routes to.
      ...QUALITIES.map((tier): ModelObject => ({ id: tier, object: 'model', created: created(catalog.tiers[tier]), owned_by: 'tollgate' })),
    ],
  }
}

/** Each table is listed once: it is fixed from boot. */
const lists = new WeakMap<ModelCatalog, ModelList>()
function list(): ModelList {
  const catalog = modelCatalog()
  let listed = lists.get(catalog)
  if (listed === undefined) lists.set(catalog, (listed = listOf(catalog)))
  return listed
}

export const openAiModelRoutes: readonly Route[] = [
  {
    method: 'GET', path: '/v1/models', name: 'openai_models', kind: 'keyed', keyTypes: ['sk'], stream: false, docs: { response: modelListSchema },
    handle: () => Reply.json(list()),
  },
  {
    method: 'GET', path: '/v1/models/:id', name: 'openai_model', kind: 'keyed', keyTypes: ['sk'], stream: false, docs: { response: modelObjectSchema },
    handle: (ctx) => {
      const model = list().data.find((candidate) => candidate.id === ctx.params.id)
      return model === undefined
        ? Reply.error(new NotFoundError(`The model ${ctx.params.id} does not exist; GET /v1/models lists the models and tiers.`))
        : Reply.json(model)
    },
  },
]
