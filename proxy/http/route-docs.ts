// What /openapi.json says about a route beyond its method, path and body schema. Every field is
// optional and only read when the document is built, so a route without it still works.
import type { z } from 'zod'

/**
 * How an open route that checks credentials itself is called: with an account's access token,
 * with a token or an API key, or with a token that a body field may replace.
 */
export type RouteAuth = 'accessToken' | 'accessTokenOrKey' | 'optionalAccessToken'

export interface RouteDocs {
  /** The status of a success; 200 when absent. */
  readonly status?: 200 | 201 | 202 | 204
  /** The success body's schema, as the handler writes it. */
  readonly response?: z.ZodType
  /** The success body's media type when it is not JSON. */
  readonly contentType?: string
  /** The query's schema: the one the handler validates ctx.query with. */
  readonly query?: z.ZodObject
  readonly auth?: RouteAuth
  /** Error statuses the handler answers beyond those every route of its kind may (e.g. 409 on a conflict). */
  readonly errors?: readonly number[]
  /** A mailed link: a browser that opens it is sent on with 303 and Location; other clients get the answer. */
  readonly redirects?: boolean
}
