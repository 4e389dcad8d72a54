// The stages of a request and which code belongs to each: the table `npm run bench:stages`
// attributes CPU profile samples by (stage-shares.ts walks the stacks).
//
// A frame's stage comes from its file, looked up by where the file sits rather than by its full
// path, so files moving into proxy/http, proxy/pipeline, proxy/stores or proxy/kit keep theirs:
//   - plugins/<name>/…   by the plugin's folder (its routes and stores included);
//   - proxy/…/dialects/  by file name (request.ts and shared.ts read the body, the rest write answers);
//   - proxy/…/tracing/   tracing;
//   - proxy/…/events/    the event outbox, a helper of several stages (caller);
//   - proxy/…            by file name, and for a file that serves two stages, by function name;
//   - workers/scan/…     the Governor's detectors; other workers/ files by file name;
//   - bench/, cli/ …     other code of the project (the benchmark's child entry, the CLI);
//   - node_modules/<p>/  only the packages that serve one stage alone (pino writes the log line,
//                        prom-client updates metrics, zod validates); every other package and
//                        Node's own code count for whoever called them.
// A `caller` file is a helper several stages use (ids, the store handle, token counting): its
// frames count for the nearest stage further out on the stack. What runs with no stage on its
// stack at all (undici reading and writing the provider's socket, LMDB committing, Node's HTTP
// parser, GC) is split by the innermost package on the stack into the `other` buckets.
import { fileOf, type CallFrame } from './cpu-profile.ts'

/** The stages in the order a request meets them, and the buckets for what no stage claims. */
export const STAGES = {
  accept: 'accept and body',
  validation: 'validation',
  auth: 'auth',
  limits: 'limits (rate limit)',
  idempotency: 'idempotency',
  cache: 'cache',
  governor: 'Governor',
  model: 'model call build and parse (router, upstream)',
  rendering: 'answer rendering',
  metering: 'metering',
  log: 'log line',
  metrics: 'metrics',
  tracing: 'tracing',
  offPath: 'other routes, boot, background work',
  unmapped: 'project code not in the stage table',
  noStage: 'other: project helpers under no stage',
  otherUndici: 'other: undici (provider sockets)',
  otherStore: 'other: LMDB (write batches)',
  otherNode: 'other: node (HTTP, streams, timers)',
  otherGc: 'other: GC',
} as const

export type Stage = keyof typeof STAGES

/** A stage, or `caller`: the stage of the nearest frame further out that has one. */
export type Rule = Stage | 'caller'

const CALLER = 'caller'

const BY_PLUGIN: Readonly<Record<string, Rule>> = {
  auth: 'auth',
  'rate-limit': 'limits',
  idempotency: 'idempotency',
  cache: 'cache',
  governor: 'governor',
  router: 'model',
  metering: 'metering',
  passthrough: 'offPath',
  accounts: 'offPath',
  dashboard: 'offPath',
  webhooks: 'offPath',
}

const BY_CORE_FILE: Readonly<Record<string, Rule>> = {
  // node:http in, the route, the body read and parsed, the request context, the chain's own loop.
  'server.ts': 'accept',
  'body.ts': 'accept',
  'request-target.ts': 'accept',
  'request-id.ts': 'accept',
  'request-context.ts': 'accept',
  'routes.ts': 'accept',
  'chain.ts': 'accept',
  'trace-context.ts': 'accept',
  // The body against the endpoint's schema.
  'validate.ts': 'validation',
  'ai-body.ts': 'validation',
  'ai-request.ts': 'validation',
  'request-tags.ts': 'validation',
  'core-routes.ts': 'validation',
  'dialect.ts': 'validation',
  // The provider call.
  'upstream.ts': 'model',
  // The answer as the client gets it.
  'ai-call.ts': 'rendering',
  'answer-format.ts': 'rendering',
  'native-format.ts': 'rendering',
  'sse.ts': 'rendering',
  'respond.ts': 'rendering',
  'render.ts': 'rendering',
  'reply.ts': 'rendering',
  'error-shape.ts': 'rendering',
  'core-answers.ts': 'rendering',
  'credits.ts': 'rendering',
  'log.ts': 'log',
  'request-log.ts': 'log',
  'scrub-log-text.ts': 'log',
  'erase-echoes.ts': 'log',
  'metrics.ts': 'metrics',
  'commit-metrics.ts': 'metrics',
  'tracing.ts': 'tracing',
  // Helpers of several stages.
  'batched-turns.ts': CALLER,
  'canonical-json.ts': CALLER,
  'catalog.ts': CALLER,
  'clock.ts': CALLER,
  'crash-points.ts': CALLER,
  'completion.ts': CALLER,
  'context.ts': CALLER,
  'count-tokens-in-pool.ts': CALLER,
  'database-listener.ts': CALLER,
  'database.ts': CALLER,
  'decoded-reads.ts': CALLER,
  'errors.ts': CALLER,
  'gateway-headers.ts': CALLER,
  'ids.ts': CALLER,
  'seeded-random.ts': CALLER,
  'inline-or-pooled.ts': CALLER,
  'models.ts': CALLER,
  'price.ts': CALLER,
  'unpriced-models.ts': CALLER,
  'owner-lease.ts': CALLER,
  'process-owner.ts': CALLER,
  'plugin.ts': CALLER,
  'pool.ts': CALLER,
  'project.ts': CALLER,
  'random-pool.ts': CALLER,
  'redis.ts': CALLER,
  'store.ts': CALLER,
  'group-commit.ts': CALLER,
  'stored-once.ts': CALLER,
  'stream-stop.ts': CALLER,
  // Boot, stop and the routes that are not a model call.
  'index.ts': 'offPath',
  'config.ts': 'offPath',
  'model-entry.ts': 'offPath',
  'model-table.ts': 'offPath',
  'cluster.ts': 'offPath',
  'cluster-metrics.ts': 'offPath',
  'drain.ts': 'offPath',
  'readiness.ts': 'offPath',
  'openapi.ts': 'offPath',
  'route-docs.ts': 'offPath',
  'project-routes.ts': 'offPath',
  'version.ts': 'offPath',
}

/** ai-call.ts runs the provider call and writes its answer: the call's part, by function. */
const BY_FUNCTION: Readonly<Record<string, Readonly<Record<string, Rule>>>> = {
  'ai-call.ts': {
    callModel: 'model',
    observe: 'model',
    firstByte: 'model',
    buildResult: 'model',
    generatedTokens: 'model',
    roundCents: 'model',
    continuedTrace: 'tracing',
  },
}

const BY_DIALECT_FILE: Readonly<Record<string, Rule>> = {
  'request.ts': 'validation',
  'embeddings-request.ts': 'validation',
  'completions-request.ts': 'validation',
  'responses-request.ts': 'validation',
  'shared.ts': 'validation',
  'format.ts': 'rendering',
  'embeddings-format.ts': 'rendering',
  'completions-format.ts': 'rendering',
  'responses-format.ts': 'rendering',
  'answers.ts': 'rendering',
  'errors.ts': 'rendering',
  'error-shapes.ts': 'rendering',
  'index.ts': 'offPath',
}

const BY_WORKER_FILE: Readonly<Record<string, Rule>> = {
  'scan-content.ts': 'governor',
  'hash-cache-key.ts': 'cache',
  'count-tokens.ts': CALLER,
  'password.ts': 'offPath',
  'tasks.ts': CALLER,
}

const BY_PACKAGE: Readonly<Record<string, Rule>> = {
  zod: 'validation',
  pino: 'log',
  '@pinojs/redact': 'log',
  'pino-std-serializers': 'log',
  'quick-format-unescaped': 'log',
  'safe-stable-stringify': 'log',
  'sonic-boom': 'log',
  'thread-stream': 'log',
  'prom-client': 'metrics',
  tdigest: 'metrics',
  bintrees: 'metrics',
  '@opentelemetry/sdk-trace-base': 'tracing',
  '@opentelemetry/exporter-trace-otlp-http': 'tracing',
  '@opentelemetry/otlp-exporter-base': 'tracing',
  '@opentelemetry/otlp-transformer': 'tracing',
  '@opentelemetry/resources': 'tracing',
  '@opentelemetry/core': 'tracing',
}

/** The rule for a file of the project, given relative to its root (`proxy/http/server.ts`). */
export function ruleOfProjectFile(path: string, functionName: string): Rule {
  const parts = path.split('/')
  const name = parts.at(-1)!
  switch (parts[0]) {
    // plugins/index.ts lists the built-ins for the boot.
    case 'plugins':
      return parts.length === 2 ? 'offPath' : (BY_PLUGIN[parts[1]!] ?? 'unmapped')
    case 'workers':
      return parts.includes('scan') ? 'governor' : (BY_WORKER_FILE[name] ?? 'unmapped')
    case 'proxy':
      if (parts.includes('dialects')) return BY_DIALECT_FILE[name] ?? 'unmapped'
      if (parts.includes('tracing')) return 'tracing'
      if (parts.includes('events')) return CALLER
      return BY_FUNCTION[name]?.[functionName] ?? BY_CORE_FILE[name] ?? 'unmapped'
    // The benchmark's child entry, the CLI: not the gateway's request path.
    default:
      return 'offPath'
  }
}

/** Packages whose work with no stage on the stack gets a bucket of its own. */
const LEFTOVER_BY_PACKAGE: Readonly<Record<string, Stage>> = {
  undici: 'otherUndici',
  lmdb: 'otherStore',
  msgpackr: 'otherStore',
  'ordered-binary': 'otherStore',
  'weak-lru-cache': 'otherStore',
  '@harperfast/extended-iterable': 'otherStore',
}

function packageOf(path: string): string {
  const parts = path.split('/')
  return parts[1]?.startsWith('@') === true ? `${parts[1]}/${parts[2]}` : (parts[1] ?? '')
}

/**
 * The rule for one frame; undefined for a frame that claims no stage (Node's own code, a package
 * not in the table, V8's pseudo-frames), whose time goes to the nearest stage further out.
 * `project` is set for the project's own files, named from `root`.
 */
export function ruleOf(frame: CallFrame, root: string): { readonly rule: Rule | undefined; readonly project?: string } {
  const file = fileOf(frame, root)
  if (file.startsWith('node_modules/')) return { rule: BY_PACKAGE[packageOf(file)] }
  if (!frame.url.startsWith('file://') || file.startsWith('/')) return { rule: undefined }
  return { rule: ruleOfProjectFile(file, frame.functionName), project: file }
}

/** The `other` bucket a frame's package or pseudo-frame names, for a stack where no stage is. */
export function leftoverOf(frame: CallFrame, root: string): Stage | undefined {
  if (frame.functionName === '(garbage collector)' && frame.url === '') return 'otherGc'
  const file = fileOf(frame, root)
  return file.startsWith('node_modules/') ? LEFTOVER_BY_PACKAGE[packageOf(file)] : undefined
}
