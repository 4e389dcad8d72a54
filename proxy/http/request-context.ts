// The request context the HTTP front makes for each request. A class, not an object literal: a
// literal with a getter among its fields is built as a dictionary (a hash table, over 2 KB per
// request), and every read of a context field then looks its name up; a class instance keeps a
// fixed shape and the getter lives once on the prototype.
import type { IncomingHttpHeaders } from 'node:http'
import type { Logger } from 'pino'
import type { AiRequest } from '../pipeline/ai-request.ts'
import type { Caller, KeyEnv, PluginState, RequestContext, RouteInfo } from '../pipeline/context.ts'
import type { TraceParent } from '../kit/trace-context.ts'
import type { RequestLogPolicy } from '../request-log.ts'

export class ServedContext implements RequestContext {
  readonly id: string
  readonly requestId: string
  readonly receivedAt: number
  readonly method: string
  readonly path: string
  readonly route: RouteInfo
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  readonly clientIp: string
  readonly body: unknown
  readonly ai: AiRequest | undefined
  readonly signal: AbortSignal
  readonly traceParent: TraceParent | undefined
  readonly span: RequestContext['span']
  readonly state: PluginState = {}
  readonly responseHeaders: Record<string, string> = {}
  readonly trailerNames: string[] = []
  readonly doneFields: Record<string, unknown> = {}
  streamedText = ''
  declare caller?: Caller
  readonly #logPolicy: RequestLogPolicy
  #log: Logger | undefined
  #logEnv: KeyEnv | null | undefined

  constructor(
    logPolicy: RequestLogPolicy,
    id: string,
    requestId: string,
    receivedAt: number,
    method: string,
    route: RouteInfo & { readonly path: string },
    params: Record<string, string>,
    query: URLSearchParams,
    headers: IncomingHttpHeaders,
    clientIp: string,
    body: unknown,
    ai: AiRequest | undefined,
    signal: AbortSignal,
    traceParent: TraceParent | undefined,
    span: RequestContext['span'],
  ) {
    this.#logPolicy = logPolicy
    this.id = id
    this.requestId = requestId
    this.receivedAt = receivedAt
    this.method = method
    this.path = route.path
    this.route = route
    this.params = params
    this.query = query
    this.headers = headers
    this.clientIp = clientIp
    this.body = body
    this.ai = ai
    this.signal = signal
    this.traceParent = traceParent
    this.span = span
  }

  // Made on first use (most requests log nothing below the configured level), and again once the
  // key's environment is known, which sets its level.
  get log(): Logger {
    const env = this.caller?.env ?? null
    if (this.#log === undefined || this.#logEnv !== env) {
      this.#log = this.#logPolicy.loggerFor(this.requestId, this.id, env, this.ai)
      this.#logEnv = env
    }
    return this.#log
  }
}
