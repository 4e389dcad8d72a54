// The OpenAPI 3.1 document of every route the gateway registered, built from the same zod
// schemas that validate the bodies, so the document cannot drift from what is enforced.
import { z } from 'zod'
import type { Route } from './routes.ts'
import { aiRequestSchemaFor } from './core-routes.ts'
import { errorShapeFor } from './dialects/error-shapes.ts'

const errorBody = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } },
}

const JSON_TYPE = 'application/json'
const SSE_TYPE = 'text/event-stream'

/** A dialect's route answers JSON or a stream, as its body's `stream` field asks. */
function successTypes(route: Route): string[] {
  if (route.dialect !== undefined) return [JSON_TYPE, SSE_TYPE]
  return [route.stream ? SSE_TYPE : JSON_TYPE]
}

function operation(route: Route) {
  const body = route.kind === 'ai' ? route.dialect?.schema ?? aiRequestSchemaFor(route) : route.body
  const shape = errorShapeFor(route.path)
  const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }))
  const keyed = route.kind !== 'open'
  return {
    operationId: `${route.method.toLowerCase()}_${route.name}`,
    summary: route.name.replaceAll('_', ' '),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(keyed ? { security: [{ apiKey: [] }, { bearerKey: [] }] } : {}),
    ...(keyed && route.keyTypes.length > 0 ? { 'x-key-types': route.keyTypes.map((t) => `${t}_`) } : {}),
    ...(body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' }) } } } }),
    responses: {
      200: { description: 'Success', content: Object.fromEntries(successTypes(route).map((type) => [type, {}])) },
      default: { description: 'Error', content: { [JSON_TYPE]: { schema: shape === undefined ? { $ref: '#/components/schemas/Error' } : shape.schema } } },
    },
  }
}

export function buildOpenApi(routes: readonly Route[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    if (route.documented === false) continue
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    ;(paths[path] ??= {})[route.method.toLowerCase()] = operation(route)
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tollgate', version, description: 'AI gateway with compliance checking.' },
    paths,
    components: {
      schemas: { Error: errorBody },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearerKey: { type: 'http', scheme: 'bearer', description: 'An API key, or an account access token where the route says so.' },
      },
    },
  }
}
