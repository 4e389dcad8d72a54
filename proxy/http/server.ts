// The HTTP front: node:http listener settings, route lookup, body limits and validation, the
// RequestContext, and handing each reply to what writes it (render.ts writes those known whole).
// No business rules here; those live in plugins.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { callModel, deliverCompletion, type AiDeps } from '../pipeline/ai-call.ts'
import { limitedBody, parseJsonBody, readBody } from './body.ts'
import type { Chain } from '../pipeline/chain.ts'
import type { Clock } from '../kit/clock.ts'
import type { CoreConfig } from '../config.ts'
import type { CompletedContext, Outcome, RequestContext } from '../pipeline/context.ts'
import type { AiRequest } from '../pipeline/ai-request.ts'
import type { ParsedAiBody } from '../pipeline/dialect.ts'
import { parseAiBody } from './ai-body.ts'
import { tagsOf } from '../pipeline/request-tags.ts'
import { errorShapeFor, notFoundMessage } from '../pipeline/dialects/error-shapes.ts'
import {
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  ShuttingDownError,
  UnsupportedMediaTypeError,
  UpstreamError,
  toGatewayError,
} from '../pipeline/errors.ts'
import { statusClass, type CoreMetrics } from '../metrics.ts'
import type { Reply } from './reply.ts'
import { outcomeOf, render, type Finish } from './render.ts'
import { clientRequestIdOf, requestId } from './request-id.ts'
import { createRequestLogPolicy, minimalRequestFields, verboseRequestFields } from '../request-log.ts'
import { ServedContext } from './request-context.ts'
import { requestTarget } from './request-target.ts'
import { sendError } from './respond.ts'
import type { Route, RouteTable } from './routes.ts'
import { traceParentOf, type TraceParent } from '../kit/trace-context.ts'
import type { Tracing } from '../tracing.ts'
import { validate } from './validate.ts'

interface ServerDeps {
  readonly config: CoreConfig
  readonly routes: RouteTable
  readonly chain: Chain
  readonly metrics: CoreMetrics
  readonly log: Logger
  readonly clock: Clock
  /** Present only when tracing is on. */
  readonly tracing?: Tracing | undefined
}

export interface RequestHandler {
  (req: IncomingMessage, res: ServerResponse): void
  /** Requests accepted and not yet finished. */
  readonly inFlight: () => number
  /** Resolves when no request is in flight and every answer has been handed to the socket. */
  readonly drained: () => Promise<void>
  /**
   * The gateway is stopping: from now on every answer closes its connection, and a new request
   * (one on a kept-alive socket) gets 503 with retry-after instead of being served; probes still answer.
   */
  readonly drain: () => void
  /** The deadline has come: ends every request still in flight (a stream with an `error` event, anything else with 503). */
  readonly cut: () => void
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

export function createHandler(deps: ServerDeps): RequestHandler {
  const { config, routes, chain, metrics, log, clock, tracing } = deps
  const logPolicy = createRequestLogPolicy(log)
  let active = 0
  let waiters: Array<() => void> = []
  let draining = false
  /** The requests in flight, to close their connections when draining begins and to end them at the deadline. */
  const open = new Map<ServerResponse, AbortController>()
  const ai: AiDeps = { chain, metrics, tracing, streamKeepAliveMs: config.streamKeepAliveMs }

  /** A completion goes to the model call's delivery, an exchange to its handler; render writes the rest. */
  function answer(ctx: RequestContext, res: ServerResponse, reply: Reply, success: Outcome = 'short_circuit'): Finish | Promise<Finish> {
    switch (reply.kind) {
      case 'completion':
        return deliverCompletion(ctx, res, reply.result, ai)
      case 'exchange':
        res.setHeader('x-request-id', ctx.requestId)
        for (const [name, value] of Object.entries(ctx.responseHeaders)) res.setHeader(name, value)
        return reply.run({ req: res.req, res, body: limitedBody(res.req, config.bodyLimitBytes) })
      default:
        return render(ctx, res, reply, success)
    }
  }

  // One listener for every answer rather than a closure per request: the controller is in `open`.
  function onClose(this: ServerResponse): void {
    const controller = open.get(this)
    open.delete(this)
    if (!this.writableFinished) controller?.abort(new Error('client disconnected'))
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = clock.now()
    const started = performance.now()
    const target = requestTarget(req.url ?? '/')
    const method = req.method ?? 'GET'
    const found = routes.find(method, target.path)
    const routeName = found !== undefined && 'route' in found ? found.route.name : 'unmatched'
    metrics.enter(routeName)
    const id = requestId(receivedAt)
    const clientId = clientRequestIdOf(req.headers['x-request-id'])
    if (clientId === undefined && req.headers['x-request-id'] !== undefined) {
      log.debug({ reqId: id }, 'x-request-id replaced: not 1 to 128 of [A-Za-z0-9._:-]')
    }
    // Every answer names the request, but in the headers it is written with: one set on the
    // response beforehand would send writeHead down Node's slow path, which validates and copies
    // each header once more.
    const exposedId = clientId ?? id
    const traceParent = req.headers.traceparent === undefined ? undefined : traceParentOf(req.headers)
    const span = tracing?.startRequest(method, target.path, traceParent)
    if (span !== undefined && found !== undefined && 'route' in found) {
      span.updateName(`${method} ${found.route.path}`)
      span.setAttribute('http.route', found.route.path)
    }
    let finish: Finish = { status: 500, reason: 'internal_error' }
    let ctx: RequestContext | undefined
    let stoppedBy: string | undefined
    const controller = new AbortController()
    open.set(res, controller)
    res.on('close', onClose)
    if (draining) res.setHeader('connection', 'close')
    try {
      const probe = found !== undefined && 'route' in found && found.route.probe === true
      if (draining && !probe) throw new ShuttingDownError()
      if (found === undefined) throw new NotFoundError(notFoundMessage(routes, method, target.path))
      if (!('route' in found)) throw new MethodNotAllowedError(found.allow)
      const { route, params } = found
      const body = await readValidBody(req, route)
      ctx = makeContext(req, route, params, target.query, body, controller.signal, id, receivedAt, exposedId, traceParent, span)
      if (route.dialect !== undefined) Object.assign(ctx.responseHeaders, (body as ParsedAiBody).headers)
      if (route.kind !== 'open') {
        const running = chain.runRequest(ctx)
        const stop = running instanceof Promise ? await running : running
        if (stop !== undefined) {
          stoppedBy = stop.stoppedBy
          if (stop.reply.kind !== 'completion')
            metrics.shortCircuits.inc({ plugin: stop.stoppedBy, reason: stop.reply.kind === 'error' ? stop.reply.error.code : stop.reply.kind })
          finish = await answer(ctx, res, stop.reply)
          return
        }
      }
      finish = route.handle === undefined ? await callModel(ctx, res, ai) : await answer(ctx, res, await route.handle(ctx), 'ok')
    } catch (err) {
      finish = fail(err, ctx, res, controller.signal, target.path, exposedId)
    } finally {
      const durationMs = performance.now() - started
      const status = statusClass(finish.status)
      metrics.countRequest(routeName, status, finish.reason)
      metrics.observeDuration(routeName, status, durationMs / 1000)
      metrics.leave(routeName)
      if (ctx !== undefined) {
        const outcome = stoppedBy === undefined ? { ...finish, durationMs } : { ...finish, durationMs, stoppedBy }
        const completed = Object.assign(ctx, { outcome }) as CompletedContext
        chain.runComplete(completed)
        const line = logPolicy.requestLine(ctx.caller?.env ?? null)
        if (line !== undefined) {
          const verbose = line === 'verbose'
          const fields = verbose ? verboseRequestFields(completed) : minimalRequestFields(completed)
          ctx.log.info(Object.assign(fields, chain.logFields(completed, verbose)), 'request')
        }
      }
      if (span !== undefined) {
        span.setAttribute('http.response.status_code', finish.status)
        if (finish.status >= 500) tracing!.fail(span, finish.reason)
        span.end()
      }
    }
  }

  function fail(err: unknown, ctx: RequestContext | undefined, res: ServerResponse, signal: AbortSignal, path: string, exposedId: string): Finish {
    const cut = signal.reason instanceof ShuttingDownError ? signal.reason : undefined
    if (signal.aborted && cut === undefined) return { status: 499, reason: 'client_aborted' }
    const error = cut ?? toGatewayError(err)
    if (error.status >= 500 && !(error instanceof ShuttingDownError)) (ctx?.log ?? log).error({ err }, 'request failed')
    // The provider refused the request itself: the client's to fix, but worth a line (status, type, code).
    else if (error instanceof UpstreamError) (ctx?.log ?? log).warn({ err }, 'provider refused the request')
    if (res.headersSent) {
      res.destroy()
      return { status: 500, reason: 'internal_error' }
    }
    if (error.status === 413) res.setHeader('connection', 'close')
    sendError(res, error, { 'x-request-id': exposedId, ...ctx?.responseHeaders }, errorShapeFor(path))
    return { status: error.status, reason: outcomeOf(error), errorCode: error.code }
  }

  async function readValidBody(req: IncomingMessage, route: Route): Promise<unknown> {
    if (route.rawBody === true) {
      if (Number(req.headers['content-length']) > config.bodyLimitBytes) {
        req.resume()
        throw new PayloadTooLargeError(config.bodyLimitBytes)
      }
      return undefined
    }
    if (!BODY_METHODS.has(req.method ?? '')) {
      req.resume()
      return undefined
    }
    const type = req.headers['content-type']
    if (type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      req.resume()
      throw new UnsupportedMediaTypeError()
    }
    const raw = await readBody(req, config.bodyLimitBytes)
    if (route.dialect !== undefined) {
      const parsed = route.dialect.parse(parseJsonBody(raw, config.maxJsonDepth), req.headers)
      return route.kind === 'ai' ? { ...parsed, request: withTags(parsed.request, req.headers) } : parsed
    }
    if (route.kind === 'ai') return withTags(parseAiBody(parseJsonBody(raw, config.maxJsonDepth), route.stream), req.headers)
    if (route.body === undefined) return undefined
    return validate(route.body, parseJsonBody(raw, config.maxJsonDepth))
  }

  function makeContext(
    req: IncomingMessage,
    route: Route,
    params: Record<string, string>,
    query: URLSearchParams,
    body: unknown,
    signal: AbortSignal,
    id: string,
    receivedAt: number,
    exposedId: string,
    traceParent: TraceParent | undefined,
    span: RequestContext['span'],
  ): RequestContext {
    return new ServedContext(
      logPolicy,
      id,
      exposedId,
      receivedAt,
      req.method ?? 'GET',
      route,
      params,
      query,
      req.headers,
      req.socket.remoteAddress ?? '',
      bodyOf(route, body),
      aiOf(route, body),
      signal,
      traceParent,
      span,
    )
  }

  const settled = () => {
    if (--active === 0) {
      for (const wake of waiters) wake()
      waiters = []
    }
  }
  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    active++
    handle(req, res)
      .catch((err: unknown) => {
        // handle() answers its own failures; one that escapes it costs this request, not the process.
        log.error({ err }, 'request failed outside its handler')
        res.destroy()
      })
      .finally(() => {
        // Counted until the answer's last bytes are handed to the socket, so closing the
        // connections once drained cuts no answer short.
        if (res.writableFinished || res.destroyed) settled()
        else res.once('close', settled)
      })
  }) as RequestHandler
  Object.assign(handler, {
    inFlight: () => active,
    drained: () => (active === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    drain: () => {
      draining = true
      for (const res of open.keys()) if (!res.headersSent) res.setHeader('connection', 'close')
    },
    cut: () => {
      for (const controller of open.values()) controller.abort(new ShuttingDownError('The gateway shut down before this request finished; retry it.'))
    },
  })
  return handler
}

/** ctx.body: a keyed or open route's body, or a dialect's own; the spec's ai routes have only ctx.ai. */
function bodyOf(route: Route, body: unknown): unknown {
  if (route.dialect !== undefined) return (body as ParsedAiBody).body
  return route.kind === 'ai' ? undefined : body
}

/** The request with its x-gateway-tags; the same object when it has none, the usual case. */
function withTags(request: AiRequest, headers: IncomingHttpHeaders): AiRequest {
  const tags = tagsOf(headers)
  return tags === undefined ? request : { ...request, tags }
}

function aiOf(route: Route, body: unknown): AiRequest | undefined {
  if (route.kind !== 'ai') return undefined
  return route.dialect === undefined ? (body as AiRequest) : (body as ParsedAiBody).request
}

export function createHttpServer(config: CoreConfig, handler: RequestHandler): Server {
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      // Checked this often, so a slow client cannot hold a socket long past the timeouts above.
      connectionsCheckingInterval: 1000,
      maxHeaderSize: 16 * 1024,
    },
    handler,
  )
  return server
}
