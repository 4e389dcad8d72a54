// The one typed request context that flows down the plugin chain. Each state slot has exactly
// one writer, the plugin of the same name; others only read it.
import type { IncomingHttpHeaders } from 'node:http'
import type { Span } from '@opentelemetry/api'
import type { Logger } from 'pino'
import type { AiRequest, Message } from './ai-request.ts'
import type { CompletionResult, ServedBy, ServingProvider, UpstreamCall } from './completion.ts'
import type { ClientDialect } from './dialect.ts'
import type { ModelName } from './models.ts'
import type { Project } from './project.ts'
import type { TraceParent } from './trace-context.ts'

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

export interface AuthState {
  readonly keyId: string
  readonly keyType: KeyType
  readonly env: KeyEnv | null
  /** dev keys: always the local provider, verbose logs, a tenth of the plan's limits. */
  readonly testMode: boolean
  readonly project: Project
}

/** The router's choice; when a fallback serves instead, the core notes it in ctx.servedBy. */
export interface RouteDecision {
  readonly provider: ServingProvider
  readonly model: ModelName
  /** Every model that may serve the request, the chosen one first, then any fallback. */
  readonly models: readonly ModelName[]
  /** The messages sent upstream, after context-window trimming. */
  readonly messages: readonly Message[]
  readonly trimmedMessages: number
  /** The gateway's count of the prompt; the bound until a count left for after admission is done. */
  promptTokens: number
  /** At least what any serving provider can count for the prompt: what a budget hold reserves. */
  readonly promptTokensBound: number
  readonly call: UpstreamCall
}

export interface RateLimitState {
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

export interface MeteringState {
  /** Dollars charged for this request, set once the charge is settled. */
  chargedDollars?: number
  /** Dollars left in the project's monthly budget after this request. */
  remainingDollars?: number
}

export interface CacheState {
  /** The hashed cache key; never the prompt itself. */
  readonly key: string
  /** Answered from the cache (stored or coalesced) instead of by a model call. */
  readonly hit: boolean
  /** Answered with a concurrent identical request's fresh answer. */
  readonly coalesced: boolean
}

export interface GovernorState {
  readonly auditId: string
  readonly riskLevel: 'low' | 'medium' | 'high' | 'critical'
  readonly riskScore: number
  readonly approved: boolean
  /** Strict mode stopped the request. */
  readonly blocked: boolean
  readonly violations: number
  /** The scan of the answer, once onResult has run. */
  readonly output?: {
    readonly riskLevel: 'low' | 'medium' | 'high' | 'critical'
    readonly violations: number
    /**
     * The text as sent holds no finding of HIGH or CRITICAL severity (none was found, or each was
     * redacted): it may be stored and replayed.
     */
    readonly storable: boolean
  }
}

/** Set on a request that replays a stored answer instead of running. */
export interface IdempotencyState {
  /** The id of the request that produced the answer: the one charged for it. */
  readonly replayOf: string
  /** The original's key, when its answer was committed, and what it cost: its ledger entry is settled from these. */
  readonly keyId: string
  readonly answeredAt: number
  readonly chargedMicros: number
}

export interface PluginState {
  auth?: AuthState
  rateLimit?: RateLimitState
  idempotency?: IdempotencyState
  router?: RouteDecision
  governor?: GovernorState
  cache?: CacheState
  metering?: MeteringState
}

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
  /** Headers for the answer. A plugin writes only the header names it owns. */
  readonly responseHeaders: Record<string, string>
  /**
   * Names of headers a plugin sets only in onResult (in responseHeaders): a stream, whose head is
   * sent before that, declares them in `Trailer` and sends them as trailers. Added in onRequest.
   */
  readonly trailerNames: string[]
  /** Fields plugins add to a stream's `done` event, each under its plugin's name; set in onResult. */
  readonly doneFields: Record<string, unknown>
  /** The full answer once known (set by the core before onResult hooks run). */
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
  | 'ok' | 'cache_hit' | 'short_circuit' | 'client_error' | 'rate_limited' | 'budget_exceeded'
  | 'upstream_error' | 'stream_aborted' | 'stream_stopped' | 'client_aborted' | 'internal_error'

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
