// The OpenAPI 3.1 document of every route the gateway registered, built once at boot from the
// same zod schemas that validate the bodies and queries, and from the answer schemas each route
// declares beside its handler, so the document cannot drift from what is enforced.
import { z } from 'zod'
import type { Route } from './routes.ts'
import type { RouteAuth } from './route-docs.ts'
import { aiRequestSchemaFor } from './core-routes.ts'
import { errorShapeFor } from '../pipeline/dialects/error-shapes.ts'
import { anthropicErrorShape } from '../pipeline/dialects/anthropic/errors.ts'
import { openAiErrorShape } from '../pipeline/dialects/openai/errors.ts'

const JSON_TYPE = 'application/json'
const SSE_TYPE = 'text/event-stream'

type JsonSchema = Record<string, unknown>

/** /openapi.json's own answer, in outline. */
export const openApiDocumentSchema = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
})

// A route's two ways in (API key, member) share their schemas: each is converted once.
const converted = { input: new WeakMap<z.ZodType, JsonSchema>(), output: new WeakMap<z.ZodType, JsonSchema>() }

/** An answer may gain fields: a client generated from the document must not reject them. */
function openAnswer(ctx: { jsonSchema: JsonSchema }): void {
  if (ctx.jsonSchema.additionalProperties === false) delete ctx.jsonSchema.additionalProperties
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  let json = converted[io].get(schema)
  if (json === undefined) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      ...(io === 'output' ? { override: openAnswer } : {}),
    }) as JsonSchema
    converted[io].set(schema, (json = rest))
  }
  return json
}

/** The gateway's error body on its own routes (errors.ts ErrorBody). */
const errorBodySchema = z.object({
  error: z.string().describe('The spec\'s error text, e.g. "Rate limit exceeded".'),
  message: z.string().describe('What went wrong and what to do about it.'),
  code: z.string().describe('A stable machine-readable code.'),
  issues: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe('On a 400: every field that failed validation.'),
  retry_after: z.number().optional().describe("On an account route's 429: seconds to wait."),
  auditId: z.string().optional().describe('When the Governor blocked the request (403 governor_blocked): its audit record.'),
  riskLevel: z.enum(['low', 'medium', 'high', 'critical']).optional().describe('When the Governor blocked the request.'),
  violations: z.array(z.looseObject({})).optional().describe('When the Governor blocked the request: what it found.'),
})

/** A mailed link's answer to a browser (the accounts plugin's toPage). */
const redirectBodySchema = z.object({ success: z.literal(true), message: z.string(), location: z.string() })

const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema })

const HEADERS = {
  RequestId: header("The request's id, also in the gateway's logs; quote it when reporting a problem."),
  RateLimitLimit: header('Requests the key may make in the current window.', { type: 'integer' }),
  RateLimitRemaining: header('Requests left in the current window.', { type: 'integer' }),
  RateLimitReset: header('Seconds until the window resets.', { type: 'integer' }),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer' }),
  RetryAfterMs: header("Milliseconds to wait before retrying (the SDKs' hint).", { type: 'integer' }),
  ShouldRetry: header(
    '`false` when the same request sent again cannot succeed or the gateway has retried it already; the SDKs obey it before their status rules.',
    { type: 'string', enum: ['true', 'false'] },
  ),
  GatewayModel: header('The model that answered, as provider/model; an HTTP trailer on a stream that a keep-alive comment opened before the model spoke.'),
  PromptTokens: header('Input tokens of the request.', { type: 'integer' }),
  CompletionTokens: header('Output tokens generated; on a stream, an HTTP trailer.', { type: 'integer' }),
  CreditsCharged: header('Dollars charged for this request, 0 on a cache hit and on an idempotent replay; on a stream, an HTTP trailer.'),
  CreditsRemaining: header("Dollars left in the project's monthly budget; on a stream, an HTTP trailer."),
  CacheStatus: header('Whether the cache answered.', { type: 'string', enum: ['HIT', 'MISS'] }),
  ContextTrimmed: header("Messages dropped from the start of the history to fit the model's context window.", { type: 'integer' }),
  GovernorValidated: header('`true` when the Governor validated the request (Governor enabled).'),
  GovernorApproved: header('`true` when the Governor approved it.'),
  GovernorRiskLevel: header("The Governor's risk level.", { type: 'string', enum: ['low', 'medium', 'high', 'critical'] }),
  GovernorRiskScore: header("The Governor's risk score, 0 to 100.", { type: 'integer', minimum: 0, maximum: 100 }),
  GovernorViolations: header('How many violations the Governor found.', { type: 'integer' }),
  GovernorAuditId: header("The Governor's audit record for this request."),
  IdempotentReplay: header('`true` when this is the stored answer to an earlier request with the same Idempotency-Key.'),
  OriginalRequestId: header('On a replay: the request id of the request first answered.'),
  Location: header("Where the browser continues: the dashboard's page for the link."),
  IgnoredFields: header('Top-level body fields the gateway accepted but does not act on, comma-separated.'),
} as const

type HeaderName = keyof typeof HEADERS
const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` })
const headersOf = (entries: ReadonlyArray<readonly [string, HeaderName]>) => Object.fromEntries(entries.map(([wire, name]) => [wire, headerRef(name)]))

const RATE_LIMIT_HEADERS = [
  ['x-ratelimit-limit', 'RateLimitLimit'],
  ['x-ratelimit-remaining', 'RateLimitRemaining'],
  ['x-ratelimit-reset', 'RateLimitReset'],
] as const
const AI_HEADERS = [
  ['x-gateway-model', 'GatewayModel'],
  ['x-gateway-prompt-tokens', 'PromptTokens'],
  ['x-gateway-completion-tokens', 'CompletionTokens'],
  ['x-credits-charged', 'CreditsCharged'],
  ['x-credits-remaining', 'CreditsRemaining'],
  ['x-cache-status', 'CacheStatus'],
  ['x-gateway-context-trimmed', 'ContextTrimmed'],
  ['x-governor-validated', 'GovernorValidated'],
  ['x-governor-approved', 'GovernorApproved'],
  ['x-governor-risk-level', 'GovernorRiskLevel'],
  ['x-governor-risk-score', 'GovernorRiskScore'],
  ['x-governor-violations', 'GovernorViolations'],
  ['x-governor-audit-id', 'GovernorAuditId'],
  ['x-idempotent-replay', 'IdempotentReplay'],
  ['x-original-request-id', 'OriginalRequestId'],
] as const

const SECURITY: Record<RouteAuth | 'key', ReadonlyArray<Record<string, never[]>>> = {
  key: [{ apiKey: [] }, { bearerApiKey: [] }],
  accessToken: [{ accessToken: [] }],
  accessTokenOrKey: [{ accessToken: [] }, { apiKey: [] }, { bearerApiKey: [] }],
  // Either the body names the refresh token, or the access token names the session.
  optionalAccessToken: [{}, { accessToken: [] }],
}

const ERROR_TEXTS: Record<number, string> = {
  400: 'The request is invalid: the body, query or a header fails validation, or the model provider refused it.',
  401: 'No credentials, or credentials that are wrong, expired or inactive.',
  402: "The project's monthly budget is spent.",
  403: 'The credentials may not call this route (key type, role), or the Governor blocked the request.',
  404: 'Nothing with that id here, or the model provider does not know the model.',
  409: 'The Idempotency-Key was used for another request, or its first request is still being answered; or the record conflicts with an existing one.',
  413: 'The body is too large.',
  415: 'The body is not JSON.',
  422: 'The model provider could not process the request.',
  429: "Rate limit exceeded (the gateway's, or the model provider's with its retry-after).",
  500: 'The gateway failed.',
  502: 'The model provider failed.',
  503: 'The gateway is overloaded or shutting down, or every deployment of the model is resting after failures; retry later.',
  504: 'The model provider did not answer in time.',
}

function errorStatuses(route: Route, secured: boolean): number[] {
  const statuses = new Set<number>([500, 503])
  const hasInput = route.body !== undefined || route.kind === 'ai' || route.docs?.query !== undefined
  if (hasInput) statuses.add(400)
  if (route.body !== undefined || route.kind === 'ai')
    [413, 415].forEach((s) => {
      statuses.add(s)
    })
  if (secured)
    [401, 403].forEach((s) => {
      statuses.add(s)
    })
  if (route.kind !== 'open') statuses.add(429)
  if (route.path.includes('/:')) statuses.add(404)
  // 404 and 422 are the provider's refusals, which keep their status (as its 400, 413 and 429 do).
  if (route.kind === 'ai')
    [402, 403, 404, 409, 422, 502, 504].forEach((s) => {
      statuses.add(s)
    })
  for (const status of route.docs?.errors ?? []) statuses.add(status)
  return [...statuses].sort((a, b) => a - b)
}

/** The error answers, shared as components: one per shape, status and set of headers. */
type ErrorResponses = Map<string, unknown>

function errorResponse(route: Route, status: number, shared: ErrorResponses) {
  const shape = errorShapeFor(route.path)
  const schemaName = shape === undefined ? 'Error' : shape === anthropicErrorShape ? 'AnthropicError' : 'OpenAiError'
  const rateLimited = status === 429 && route.kind !== 'open'
  const name = `${schemaName}${status}${rateLimited ? 'RateLimited' : ''}`
  if (!shared.has(name)) {
    const headers: Array<readonly [string, HeaderName]> = [['x-request-id', 'RequestId']]
    headers.push(['x-should-retry', 'ShouldRetry'])
    if (status === 429 || status === 503 || status === 409) headers.push(['retry-after', 'RetryAfter'], ['retry-after-ms', 'RetryAfterMs'])
    if (rateLimited) headers.push(...RATE_LIMIT_HEADERS)
    shared.set(name, {
      description: ERROR_TEXTS[status]!,
      headers: headersOf(headers),
      content: { [JSON_TYPE]: { schema: { $ref: `#/components/schemas/${schemaName}` } } },
    })
  }
  return { $ref: `#/components/responses/${name}` }
}

/** The route declares what a success answers: a schema, or the stream of the spec's chat. */
export function isDescribed(route: Route): boolean {
  return route.docs?.response !== undefined || (route.kind === 'ai' && route.stream)
}

const SSE_SCHEMAS = {
  native: {
    type: 'string',
    description:
      'Server-Sent Events: `event: delta` with `{text}` per piece of the answer, then `event: done` with ' +
      '`{provider, model, cacheHit, usage, creditsCharged, creditsRemaining}`, or `event: error` with `{error, message}`.',
  },
} as const

function successResponse(route: Route) {
  const docs = route.docs ?? {}
  const headers: Array<readonly [string, HeaderName]> = [['x-request-id', 'RequestId']]
  if (route.kind !== 'open') headers.push(...RATE_LIMIT_HEADERS)
  if (route.kind === 'ai') headers.push(...AI_HEADERS)
  if (route.dialect !== undefined) headers.push(['x-gateway-ignored-fields', 'IgnoredFields'])
  const content: Record<string, { schema: JsonSchema }> = {}
  if (route.kind === 'ai' && route.stream) content[SSE_TYPE] = { schema: SSE_SCHEMAS.native }
  else if (docs.response !== undefined) content[docs.contentType ?? JSON_TYPE] = { schema: jsonSchemaOf(docs.response, 'output') }
  // A dialect answers JSON, or a stream when the body's `stream` is true and the route streams.
  const sse = route.dialect?.sse
  if (sse !== undefined) content[SSE_TYPE] = { schema: { type: 'string', description: sse } }
  return {
    description: sse === undefined ? 'Success.' : 'Success: JSON, or a stream when the body asks for one.',
    headers: headersOf(headers),
    ...(docs.status === 204 ? {} : { content }),
  }
}

function redirectResponse() {
  return {
    description: "A browser is sent on to the dashboard's page, which finishes what the mailed link starts.",
    headers: headersOf([
      ['x-request-id', 'RequestId'],
      ['location', 'Location'],
    ]),
    content: { [JSON_TYPE]: { schema: jsonSchemaOf(redirectBodySchema, 'output') } },
  }
}

function parametersOf(route: Route) {
  const path = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1]!, in: 'path', required: true, schema: { type: 'string' } }))
  const query = route.docs?.query === undefined ? [] : queryParameters(route.docs.query)
  const headers = []
  if (route.kind === 'ai') {
    headers.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Within 24 hours, the same key with the same request gets the stored answer instead of a second model call.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    })
  }
  if (route.dialect !== undefined) {
    headers.push({
      name: 'x-governor-metadata',
      in: 'header',
      required: false,
      description: 'governorMetadata as a JSON object, when the body does not carry it.',
      schema: { type: 'string' },
    })
  }
  return [...path, ...query, ...headers]
}

function queryParameters(query: z.ZodObject) {
  const schema = jsonSchemaOf(query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] }
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property
    return {
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    }
  })
}

function securityOf(route: Route): ReadonlyArray<Record<string, never[]>> {
  if (route.kind !== 'open') return SECURITY.key
  return route.docs?.auth === undefined ? [] : SECURITY[route.docs.auth]
}

function operation(route: Route, shared: ErrorResponses) {
  const body = route.kind === 'ai' ? (route.dialect?.schema ?? aiRequestSchemaFor(route)) : route.body
  const parameters = parametersOf(route)
  const security = securityOf(route)
  return {
    operationId: `${route.method.toLowerCase()}_${route.name}`,
    summary: route.name.replaceAll('_', ' '),
    ...(parameters.length > 0 ? { parameters } : {}),
    security,
    ...(route.kind !== 'open' && route.keyTypes.length > 0 ? { 'x-key-types': route.keyTypes.map((t) => `${t}_`) } : {}),
    ...(body === undefined ? {} : { requestBody: { required: true, content: { [JSON_TYPE]: { schema: jsonSchemaOf(body, 'input') } } } }),
    responses: {
      [route.docs?.status ?? 200]: successResponse(route),
      ...(route.docs?.redirects === true ? { 303: redirectResponse() } : {}),
      ...Object.fromEntries(errorStatuses(route, security.length > 0).map((status) => [status, errorResponse(route, status, shared)])),
    },
  }
}

export function buildOpenApi(routes: readonly Route[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {}
  const responses: ErrorResponses = new Map()
  for (const route of routes) {
    if (route.documented === false) continue
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    ;(paths[path] ??= {})[route.method.toLowerCase()] = operation(route, responses)
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tollgate', version, description: 'AI gateway with compliance checking.' },
    servers: [{ url: '/', description: 'This gateway; account routes are on the auth listener when one is configured.' }],
    paths,
    components: {
      schemas: { Error: jsonSchemaOf(errorBodySchema, 'output'), OpenAiError: openAiErrorShape.schema, AnthropicError: anthropicErrorShape.schema },
      responses: Object.fromEntries([...responses].sort(([a], [b]) => a.localeCompare(b))),
      headers: HEADERS,
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: "An API key: sk_ (gateway) or pk_ (project), as each route's x-key-types lists.",
        },
        bearerApiKey: { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token: Authorization: Bearer sk_…' },
        accessToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "An account's access token from /api/auth/login, /api/auth/refresh or a magic link: Authorization: Bearer <access_token>.",
        },
      },
    },
  }
}
