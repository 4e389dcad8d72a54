// GET /v1/models and /v1/models/{id} in OpenAI's shape: the catalog's models, their aliases and
// the tier names, every one of which a gateway key may ask for. The router serves them: it knows
// where each tier routes.
import type { ModelCatalog } from '../../../proxy/pipeline/catalog.ts'
import { modelListSchema, modelObjectSchema } from '../../../proxy/pipeline/dialects/openai/answers.ts'
import { NotFoundError } from '../../../proxy/pipeline/errors.ts'
import { QUALITIES, type ModelName, type Quality } from '../../../proxy/pipeline/models.ts'
import type { RouteSpec } from '../../../proxy/pipeline/plugin.ts'
import { Reply } from '../../../proxy/http/reply.ts'

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

function listOf(tiers: Readonly<Record<Quality, ModelName>>, catalog: ModelCatalog): ModelList {
  const created = (name: string) => catalog.info(name).created
  return {
    object: 'list',
    data: [
      ...catalog.names.map((name): ModelObject => ({ id: name, object: 'model', created: created(name), owned_by: catalog.info(name).provider })),
      ...[...catalog.aliases.keys()].map(
        (alias): ModelObject => ({ id: alias, object: 'model', created: created(alias), owned_by: catalog.info(alias).provider }),
      ),
      // A tier is the gateway's own name for the model it routes to.
      ...QUALITIES.map((tier): ModelObject => ({ id: tier, object: 'model', created: created(tiers[tier]), owned_by: 'tollgate' })),
    ],
  }
}

/** The list is built once: the model table and the tiers are fixed from boot. */
export function modelRoutes(tiers: Readonly<Record<Quality, ModelName>>, catalog: ModelCatalog): readonly RouteSpec[] {
  const list = listOf(tiers, catalog)
  return [
    {
      method: 'GET',
      path: '/v1/models',
      name: 'openai_models',
      kind: 'keyed',
      keyTypes: ['sk'],
      docs: { response: modelListSchema },
      handle: () => Reply.json(list),
    },
    {
      method: 'GET',
      path: '/v1/models/:id',
      name: 'openai_model',
      kind: 'keyed',
      keyTypes: ['sk'],
      docs: { response: modelObjectSchema },
      handle: (ctx) => {
        const model = list.data.find((candidate) => candidate.id === ctx.params.id)
        return model === undefined
          ? Reply.error(new NotFoundError(`The model ${ctx.params.id} does not exist; GET /v1/models lists the models and tiers.`))
          : Reply.json(model)
      },
    },
  ]
}
