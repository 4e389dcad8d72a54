// The one typed request context that flows down the plugin chain. Each state slot has exactly
// one writer, the plugin of the same name, which declares the slot itself; others only read it.
// The core reads no slot: what it needs from plugins (who called, what model to call, what was
// charged) it reads from fields of its own, which name their role and not a plugin.
import type { IncomingHttpHeaders } from 'node:http'
import type { Span } from '@opentelemetry/api'
import type { Logger } from 'pino'
import type { AiRequest } from './ai-request.ts'
import type { CompletionResult, ServedBy, ServingProvider, UpstreamCall } from './completion.ts'
import type { ClientDialect } from './dialect.ts'
import type { ModelName } from './models.ts'
import type { Project } from './project.ts'
import type { TraceParent } from '../kit/trace-context.ts'

/** ai: the full chain and a model call. keyed: auth and rate limit, then the route's handler. open: no chain. */
export type RouteKind = 'ai' | 'keyed' | 'open'
export type KeyType = 'sk' | 'pk'
export type KeyEnv = 'dev' | 'stg' | 'prod'

export interface RouteInfo {
  /** Low-cardinality name used in metrics and logs, e.g. 'ai_chat'. */
  readonly name: string
  readonly kind: RouteKind
  /** Key types allowed on a keyed or ai route. */
  readonly keyTypes: readonly KeyType[]
  /** The answer is an SSE stream. */
  readonly stream: boolean
  /** A probe for load balancers and monitoring (/healthz, /readyz, /metrics), still answered while the gateway drains. */
  readonly probe?: boolean
  /** On an ai route that speaks another API's formats: how its bodies are read and its answers written. */
  readonly dialect?: ClientDialect
}

/**
 * Who the request's API key belongs to: what the core needs of it (project routes, the log level
 * of the key's environment). Set by the plugin that checks API keys.
 */
export interface Caller {
  readonly env: KeyEnv | null
  readonly project: Project
}

/** The model call the core runs on an ai route: set by the plugin that routes the request. */
export interface ModelCall {
  readonly provider: ServingProvider
  readonly model: ModelName
  /** The gateway's count of the prompt; the bound until a count left for after admission is done. */
  promptTokens: number
  readonly call: UpstreamCall
}

/** What the request was charged, as the answer reports it: set by the plugin that meters. */
export interface Charge {
  /** Dollars charged for this request, set once the charge is settled. */
  chargedDollars?: number
  /** Dollars left in the project's monthly budget after this request. */
  remainingDollars?: number
}

/**
 * One slot per plugin, named after it and written by it alone. The core declares none: each
 * plugin adds its own by module augmentation, in its state.ts.
 */
// biome-ignore lint/suspicious/noEmptyInterface: an interface, not a type, so that plugins can augment it
export interface PluginState {}

export interface RequestContext {
  /** The gateway's own unique id (UUIDv7): the key of the request's records (ledger, holds, idempotency). */
  readonly id: string
  /** What the client and the logs call the request (`x-request-id`): the client's valid id, else `id`. */
  readonly requestId: string
  readonly receivedAt: number
  readonly method: string
  readonly path: string
  readonly route: RouteInfo
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  readonly headers: IncomingHttpHeaders
  readonly clientIp: string
  /** The validated body of a keyed or open route (its schema's output), or a dialect's own body. */
  readonly body: unknown
  /** The validated body of an ai route. */
  readonly ai: AiRequest | undefined
  /** Aborts when the client goes away; pass it to upstream calls and pool tasks. */
  readonly signal: AbortSignal
  readonly log: Logger
  readonly state: PluginState
  /** Set by the plugin that checks API keys, on keyed and ai routes. */
  caller?: Caller
  /** Set by the plugin that routes an ai request, before the core calls the model. */
  modelCall?: ModelCall
  /** Set by the plugin that meters, once it settled the request's charge. */
  charge?: Charge
  /** Headers for the answer. A plugin writes only the header names it owns. */
  readonly responseHeaders: Record<string, string>
  /**
   * Names of headers a plugin sets only in onAnswer (in responseHeaders): a stream, whose head is
   * sent before that, declares them in `Trailer` and sends them as trailers. Added in onRequest.
   */
  readonly trailerNames: string[]
  /** Fields plugins add to a stream's `done` event, each under its plugin's name; set in onAnswer. */
  readonly doneFields: Record<string, unknown>
  /** The full answer once known (set by the core before onAnswer hooks run). */
  result?: CompletionResult
  /** Set by the core when a fallback served the call instead of the route's first choice. */
  servedBy?: ServedBy
  /**
   * Text the model has streamed so far (its tool calls' names and arguments included), as it came
   * (before any plugin held back or replaced part of it): what it generated, and so what metering
   * counts for a stream that was cut or stopped.
   */
  streamedText: string
  /** The incoming W3C trace context, when the request carried a valid one. */
  readonly traceParent?: TraceParent | undefined
  /** The request's span, when tracing is on. */
  readonly span?: Span | undefined
  /** `traceparent` (and `tracestate`) for the provider call, set by the core before it; absent when there is no trace to carry. */
  upstreamTraceHeaders?: Readonly<Record<string, string>>
  /** The model call's duration and its time to the first byte (or event), set by the core. */
  upstreamMs?: number
  firstByteMs?: number
}

export type Outcome =
  | 'ok'
  | 'cache_hit'
  | 'short_circuit'
  | 'client_error'
  | 'rate_limited'
  | 'budget_exceeded'
  | 'upstream_error'
  | 'stream_aborted'
  | 'stream_stopped'
  | 'client_aborted'
  | 'internal_error'

export interface CompletedContext extends RequestContext {
  readonly outcome: {
    readonly status: number
    readonly reason: Outcome
    readonly stoppedBy?: string
    /** The error's code, when the request ended in one. */
    readonly errorCode?: string
    readonly durationMs: number
  }
}

/** The answer goes out as Server-Sent Events: by route on the spec's endpoints, by body on a dialect's. */
export function isStreamed(ctx: RequestContext): boolean {
  return ctx.ai?.stream ?? ctx.route.stream
}

/** The AI body of a context on an ai route; a programming error anywhere else. */
export function aiRequestOf(ctx: RequestContext): AiRequest {
  if (ctx.ai === undefined) throw new Error(`route ${ctx.route.name} carries no AI request`)
  return ctx.ai
}
