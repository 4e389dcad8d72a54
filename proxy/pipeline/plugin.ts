// The plugin contract. Built-ins are listed in plugins/index.ts; the chain runner (chain.ts)
// checks the rules stated here when the gateway boots.
import type { z } from 'zod'
import type { Logger } from 'pino'
import type { Registry } from 'prom-client'
import type { Clock } from '../kit/clock.ts'
import type { EventOutbox, SharedEventOutbox } from '../stores/events/index.ts'
import type { ToolCall } from './ai-request.ts'
import type { CompletionResult, StreamChunk } from './completion.ts'
import type { CompletedContext, KeyType, RequestContext } from './context.ts'
import type { WorkerPool } from '../kit/pool.ts'
import type { Project } from './project.ts'
import type { ModelCatalog } from './catalog.ts'
import type { Reply, WholeReply } from '../http/reply.ts'
import type { RouteDocs } from '../http/route-docs.ts'
import type { PluginStore } from '../stores/store.ts'
import type { PluginDatabase } from '../stores/database.ts'
import type { SharedRedis } from '../stores/redis.ts'

/** kebab-case. The core lists no plugin; names are checked at boot (unique, each one `requires` present, each one `reads` set up before). */
export type PluginName = string

/** Static description of a plugin. */
export interface GatewayPlugin<S extends z.ZodType = z.ZodType> {
  /** kebab-case; also its config key, log field, metric label and store namespace. */
  readonly name: PluginName
  /** Ascending; runs earlier when lower. Unique. */
  readonly order: number
  /** Which route kinds the request hooks run on. */
  readonly gates: readonly ('ai' | 'keyed')[]
  /** Parsed once at boot; defaults live here. */
  readonly schema: S
  /** A failure of this plugin lets traffic through (logged and counted) instead of answering 500. */
  readonly failOpen?: boolean
  /**
   * Plugins whose services or state slots this one uses: the gateway refuses to start unless each
   * is among its plugins with a lower order, so it is set up (and runs) before this one.
   */
  readonly requires?: readonly PluginName[]
  /**
   * Plugins whose ctx.state slots this one reads (a slot is named after its plugin, camelCased).
   * The gateway refuses to start if one of them runs after this one, when its slot would still be
   * empty; one that is not among its plugins leaves the slot empty, which every reader handles,
   * since every slot is optional (a gateway of the router alone has no auth).
   */
  readonly reads?: readonly PluginName[]
  /** Environment variables that set this plugin's config, each at its path inside the plugin's section. */
  readonly env?: readonly EnvVar[]
  setup(config: z.output<S>, deps: PluginDeps): PluginHooks | Promise<PluginHooks>
}

/** An environment variable, the config path it sets and how its text is read. */
export type EnvVar = readonly [name: string, path: readonly string[], kind: 'string' | 'int' | 'bool']

export interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  /**
   * Literal segments and `:param` segments, e.g. '/api/compliance/cases/:id'; a last segment `*`
   * takes any rest of the path, found in ctx.params['*'] as it came (not decoded).
   */
  readonly path: string
  /** Low-cardinality name for metrics. */
  readonly name: string
  readonly kind: 'keyed' | 'open'
  readonly keyTypes?: readonly KeyType[]
  /** 'auth': served on AUTH_PORT when one is set (the account endpoints), else on the main listener. */
  readonly listener?: 'main' | 'auth'
  readonly body?: z.ZodType
  /** The body is left unread, of any content type, for a handler that streams it (Reply.exchange); BODY_LIMIT_BYTES still holds. */
  readonly rawBody?: boolean
  /** False leaves it out of /openapi.json: a page or a file for browsers, not an API. */
  readonly documented?: boolean
  /** Its answer, query and credentials, for /openapi.json. */
  readonly docs?: RouteDocs
  /** Answers the request; ctx.body holds the parsed body, query params are in ctx.query (validate them with proxy/http/validate.ts). */
  handle(ctx: RequestContext): Reply | Promise<Reply>
}

/**
 * An endpoint that acts on one project's records. It is served twice (proxy/http/project-routes.ts):
 * at `/api<path>` to the project's API keys, and at `/api/projects/:projectId<path>` on the auth
 * listener to the members of the project's organization, as the projectAccess service allows.
 */
export interface ProjectRouteSpec {
  readonly method: RouteSpec['method']
  /** Below the project, e.g. '/compliance/violations/:id'. */
  readonly path: string
  /** Low-cardinality name for metrics; the members' way in is named `members_<name>`. */
  readonly name: string
  /** Key types that may call it at /api<path>; none serves it to organization members only. */
  readonly keyTypes: readonly KeyType[]
  /** It changes something: a member needs a role that may make changes. */
  readonly writes: boolean
  readonly body?: z.ZodType
  /** Its answer and query, for /openapi.json; both ways in share them. */
  readonly docs?: RouteDocs
  /** Answers for `project`, which the caller may use; ctx.params also holds the path's parameters. */
  handle(ctx: RequestContext, project: Project): Reply | Promise<Reply>
}

/** Who may call a project route with a bearer access token, and the record of what they changed. */
export interface ProjectAccess {
  /** The project, if the caller may call the route on it; otherwise it throws the error to answer (401, 403, 404). */
  authorize(ctx: RequestContext, projectId: string, route: Pick<ProjectRouteSpec, 'name' | 'writes'>): Promise<ProjectGrant>
}

interface ProjectGrant {
  readonly project: Project
  /** Records the change the route made, before it is answered; called only after a write succeeded. */
  recordChange(): Promise<void>
}

/**
 * Services a plugin offers the plugins set up after it (higher order), instead of their reaching
 * into its store: one implementation, one set of rules, however many callers. The core declares
 * only the one it uses itself; each plugin adds what it provides by module augmentation, in its
 * state.ts.
 */
export interface PluginServices {
  /** Members' access to project routes by bearer token: the accounts plugin's organizations and roles. */
  readonly projectAccess?: ProjectAccess
}

/** What an onStreamEnd hook lets out at the end of a stream. */
export interface StreamEnd extends StreamChunk {
  /** The held tool calls' arguments as they are to be sent, one per call in the order given. */
  readonly arguments?: readonly string[]
}

/** Per-process hooks returned by setup(). Every hook is optional. */
export interface PluginHooks {
  /** Services for the plugins set up after this one. */
  readonly provides?: PluginServices
  /** Endpoints this plugin owns. */
  readonly routes?: readonly RouteSpec[]
  /** Endpoints on one project's records, for its keys and its organization's members. */
  readonly projectRoutes?: readonly ProjectRouteSpec[]
  /** Request phase, in ascending order. Return a Reply to stop the chain; return nothing to continue. */
  onRequest?(ctx: RequestContext): Reply | void | Promise<Reply | void>
  /**
   * The whole answer is known and nothing final has been written: before the JSON body, or before
   * the stream's done event. In ascending order, until one withholds the answer. The result is
   * this request's own object: a hook may replace its text before it is sent (a non-streamed
   * answer) and committed, and the hooks after it see the replacement. A returned Reply is sent
   * instead of a non-streamed answer, which is then withheld; on a stream, already sent, it is
   * ignored. Nothing is committed here: that waits for onAnswered, once every hook has had its say.
   */
  onAnswer?(ctx: RequestContext, result: CompletionResult): WholeReply | void | Promise<WholeReply | void>
  /**
   * After every onAnswer hook, in ascending order, before the answer is written: commits what the
   * answer settles (the idempotent answer, the cache entry, the charge). Awaited, so what it
   * commits is durable before the response completes. `withheld` is the Reply an onAnswer hook
   * sent in the answer's place, or undefined when the answer goes out: a withheld result is what
   * the model produced, which the client never gets, so it must not be stored for reuse. It
   * cannot withhold; like any hook, a fail-closed plugin that throws answers with its error.
   */
  onAnswered?(ctx: RequestContext, result: CompletionResult, withheld: WholeReply | undefined): void | Promise<void>
  /**
   * Per streamed chunk, before it is sent: return a replacement chunk or nothing. A replacement may
   * carry less text than it was given: the plugin holds the rest and lets it out later, from a
   * later chunk or from onStreamEnd. Throwing a StreamStop (proxy/pipeline/stream-stop.ts) ends the stream
   * with an `error` event and stops the model call. Not an async function: a promise per chunk
   * would cost every chunk a turn of the loop. Return a promise only when there is long work to
   * wait for (a scan in the worker pool); the core awaits it before the next chunk, and its
   * rejection counts as a throw.
   */
  onStreamChunk?(ctx: RequestContext, chunk: StreamChunk): StreamChunk | void | Promise<StreamChunk | void>
  /**
   * Asked once as a stream begins: true has the core hold the stream's tool-call pieces until its
   * end, so onStreamEnd can check the whole calls before any of them is sent. When no plugin asks,
   * tool-call pieces go out as they arrive. Synchronous.
   */
  holdsStreamToolCalls?(ctx: RequestContext): boolean
  /**
   * Once the model's stream has ended, before onAnswer: the text the plugin still holds (it then
   * passes through the onStreamChunk hooks of the plugins after it), or nothing. `toolCalls` are
   * the stream's tool calls put together; when a plugin asked to hold them (holdsStreamToolCalls)
   * none was sent yet, and they go out after the held text once every onStreamEnd passed. A
   * plugin may then rewrite their arguments (StreamEnd); the plugins after it see the rewritten
   * calls, and those are what is sent and what the result holds. Calls that were not held went
   * out as they came, and rewriting them changes nothing.
   * May throw a StreamStop like onStreamChunk, and return a promise like it.
   */
  onStreamEnd?(ctx: RequestContext, toolCalls: readonly ToolCall[]): StreamEnd | void | Promise<StreamEnd | void>
  /** Exactly once per request that entered the chain, after the last byte, abort, short-circuit or error. Must not throw. */
  onComplete?(ctx: CompletedContext): void
  /**
   * This plugin's fields on the request's `request` log line, read from its state slot; `verbose`
   * on a development key's line. Figures and names only, never a prompt's or an answer's text.
   * Called after onComplete, only when the line is written.
   */
  logFields?(ctx: CompletedContext, verbose: boolean): Readonly<Record<string, unknown>> | undefined
  /**
   * Facts this plugin adds to /readyz's JSON body (e.g. which providers are simulated). They
   * inform and never make the gateway unready. Called on every /readyz request.
   */
  readiness?(): Readonly<Record<string, unknown>>
  /** Text for the operator, printed once at start on stdout and never logged (it may hold a new key). */
  notice?(baseUrl: string): string | undefined
  close?(): Promise<void>
}

export interface PluginDeps {
  /** Databases namespaced to this plugin. */
  readonly store: PluginStore
  /**
   * This plugin's own PostgreSQL tables, when DATABASE_URL is set: its durable records live
   * there instead of in `store`, so every gateway on that database sees them.
   */
  readonly database?: PluginDatabase | undefined
  /**
   * The event outbox every gateway on DATABASE_URL shares, set with `database`. A plugin whose
   * records live in PostgreSQL emits here, in the transaction of the change, instead of in `events`.
   */
  readonly sharedEvents?: SharedEventOutbox | undefined
  /** Redis, when REDIS_URL is set, for hot state every gateway must see at once; keys under redis.prefix(name). */
  readonly redis?: SharedRedis | undefined
  readonly pool: WorkerPool
  readonly metrics: Registry
  readonly log: Logger
  readonly clock: Clock
  /** The model table in force (the shipped one with the config's models and prices): every name, price and capability a plugin reads. */
  readonly catalog: ModelCatalog
  /** What the plugins set up before this one provide. */
  readonly services: PluginServices
  /** Events for webhooks; emit them inside the transaction of the change that causes them. */
  readonly events: EventOutbox
  /** Tracks background work (e.g. writes after the response) so shutdown can wait for it. */
  readonly track: (work: Promise<unknown>) => void
}
