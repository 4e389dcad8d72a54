// start(): the only place that knows all parts. It loads the config, opens the store and the
// worker pool, sets up the plugins in order, builds the chain and the routes, and listens.
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { buildChain, assertPluginRules } from './pipeline/chain.ts'
import { systemClock, type Clock } from './kit/clock.ts'
import { ConfigError, loadConfig, type GatewayConfig } from './config.ts'
import { DependencyUnavailableError } from './pipeline/errors.ts'
import { drainListeners } from './http/drain.ts'
import { openOutboxes, type SharedEventOutbox } from './stores/events/index.ts'
import { registerCommitMetrics } from './stores/commit-metrics.ts'
import { isClusterWorker } from './cluster.ts'
import { clusterMetricsSource } from './cluster-metrics.ts'
import { coreRoutes, metricsRoute, type MetricsSource } from './http/core-routes.ts'
import { buildOpenApi, isDescribed, openApiDocumentSchema } from './http/openapi.ts'
import { Reply } from './http/reply.ts'
import { VERSION } from './kit/version.ts'
import { createLogger, type Logger } from './log.ts'
import { createMetrics, type CoreMetrics } from './metrics.ts'
import type { GatewayPlugin, PluginHooks, PluginServices } from './pipeline/plugin.ts'
import { createPool, type WorkerPool } from './kit/pool.ts'
import { projectRoutes } from './http/project-routes.ts'
import { trackReadiness } from './http/readiness.ts'
import { buildRouteTable, type Route } from './http/routes.ts'
import { createHandler, createHttpServer, type RequestHandler } from './http/server.ts'
import { openStore, type Store } from './stores/store.ts'
import { openDatabase, type Database } from './stores/database.ts'
import { openRedis, type SharedRedis } from './stores/redis.ts'
import { startTracing, type Tracing } from './tracing.ts'
import { builtinPlugins } from '../plugins/index.ts'
import { modelCatalog } from './pipeline/catalog.ts'

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv
  /** Config values that win over the file and the environment (tests, the CLI's flags). */
  readonly overrides?: Record<string, unknown>
  readonly clock?: Clock
  readonly plugins?: readonly GatewayPlugin[]
  readonly logDestination?: NodeJS.WritableStream
}

export interface Gateway {
  readonly url: string
  readonly port: number
  readonly metricsUrl: string | undefined
  /** Where the account endpoints are served: the auth listener, or the main one. */
  readonly authUrl: string
  readonly config: GatewayConfig
  readonly log: Logger
  readonly metrics: CoreMetrics
  /**
   * Every route registered, on every listener; `documented` ones are in /openapi.json, and
   * `described` ones declare their answer's schema there.
   */
  readonly routes: ReadonlyArray<{ readonly method: string; readonly path: string; readonly documented: boolean; readonly described: boolean }>
  /** Operator notices from plugins (e.g. the first-start demo key). */
  readonly notices: readonly string[]
  /**
   * Stops accepting and drains (/readyz 503, new requests on kept-alive sockets 503), lets in-flight
   * requests finish within the grace period (`shutdownGraceMs` unless given), ends those still
   * running at its end, then closes everything.
   */
  close(graceMs?: number): Promise<void>
}

export async function start(options: StartOptions = {}): Promise<Gateway> {
  const plugins = options.plugins ?? builtinPlugins
  assertPluginRules(plugins)
  const config = loadConfig(plugins, options.env ?? process.env, options.overrides)
  // The table the configuration put in force: plugins get it in their deps.
  const catalog = modelCatalog()
  const core = config.core
  const log = createLogger(core.logLevel, options.logDestination)
  const clock = options.clock ?? systemClock
  const store = openStore(core.dataDir)
  const shared: SharedStores = {
    database: core.databaseUrl === undefined ? undefined : openDatabase(core.databaseUrl, log.child({ dependency: 'postgres' })),
    redis: core.redisUrl === undefined ? undefined : openRedis(core.redisUrl, log.child({ dependency: 'redis' })),
  }
  await shared.redis?.connected()
  const metrics = createMetrics()
  registerCommitMetrics(metrics.registry, { lmdb: store.commits, postgres: shared.database?.commits })
  const pool = createPool(core.pool, metrics.registry)
  const background = new Set<Promise<unknown>>()
  // One then, not catch and finally: work is tracked per request (a cache write, a charge), and
  // each of those two makes a promise and closures of its own.
  const track = (work: Promise<unknown>) => {
    background.add(work)
    work.then(
      () => background.delete(work),
      (err: unknown) => {
        log.error({ err }, 'background work failed')
        background.delete(work)
      },
    )
  }

  const entries: Array<{ plugin: GatewayPlugin; hooks: PluginHooks }> = []
  let services: PluginServices = {}
  try {
    const outboxes = await openOutboxes(store.root, shared.database?.forPlugin('core'), clock, log)
    shared.events = outboxes.shared
    for (const plugin of [...plugins].sort((a, b) => a.order - b.order)) {
      const hooks = await plugin.setup(config.plugins.get(plugin.name), {
        store: store.forPlugin(plugin.name),
        database: shared.database?.forPlugin(plugin.name),
        sharedEvents: outboxes.shared,
        redis: shared.redis,
        pool,
        metrics: metrics.registry,
        log: log.child({ plugin: plugin.name }),
        clock,
        catalog,
        track,
        events: outboxes.local,
        services,
      })
      if (hooks.provides !== undefined) services = { ...services, ...hooks.provides }
      entries.push({ plugin, hooks })
    }
  } catch (err) {
    await closeAll(entries, pool, store, shared)
    throw startError(err)
  }

  let tracing: Tracing | undefined
  try {
    tracing = await startTracing(core.tracing, VERSION, log)
  } catch (err) {
    await closeAll(entries, pool, store, shared)
    throw err
  }
  const chain = buildChain(entries, metrics, tracing)
  const pluginRoutes: Route[] = [
    ...entries.flatMap(({ hooks }) => (hooks.routes ?? []).map((spec) => ({ ...spec, keyTypes: spec.keyTypes ?? [], stream: false }))),
    ...projectRoutes(
      entries.flatMap(({ hooks }) => hooks.projectRoutes ?? []),
      services.projectAccess,
    ),
  ]
  const readiness = trackReadiness(() => store.isOpen(), shared, metrics.registry)
  const readinessDetails = () => Object.assign({ ...readiness.dependencies() }, ...entries.map(({ hooks }) => hooks.readiness?.())) as Record<string, unknown>
  let draining = false
  const metricsSource: MetricsSource = {
    text: isClusterWorker() ? clusterMetricsSource(metrics.registry) : () => metrics.registry.metrics(),
    contentType: metrics.registry.contentType,
  }
  const onAuthListener = (route: Route) => core.authPort !== undefined && route.listener === 'auth'
  const listeners: ListenerSpec[] = [
    {
      name: 'main',
      port: core.port,
      routes: [
        ...coreRoutes(metricsSource, readiness, () => draining, core.metricsPort === undefined, readinessDetails),
        ...pluginRoutes.filter((r) => !onAuthListener(r)),
      ],
    },
  ]
  if (core.metricsPort !== undefined) listeners.push({ name: 'metrics', port: core.metricsPort, routes: [metricsRoute(metricsSource)] })
  if (core.authPort !== undefined) listeners.push({ name: 'auth', port: core.authPort, routes: pluginRoutes.filter(onAuthListener) })
  listeners[0]!.routes.push({
    method: 'GET',
    path: '/openapi.json',
    name: 'openapi',
    kind: 'open',
    keyTypes: [],
    stream: false,
    docs: { response: openApiDocumentSchema },
    handle: () => Reply.bytes(openApi, { 'content-type': 'application/json' }),
  })
  // Built and serialized once, now that every listener's routes are known; each request sends the same bytes.
  const openApi = Buffer.from(
    JSON.stringify(
      buildOpenApi(
        listeners.flatMap((l) => l.routes),
        VERSION,
      ),
    ),
  )
  const running: Listening[] = []
  try {
    for (const listener of listeners) {
      const handler = createHandler({ config: core, routes: buildRouteTable(listener.routes), chain, metrics, log, clock, tracing })
      running.push(await listen(createHttpServer(core, handler), handler, listener, core.host))
    }
  } catch (err) {
    for (const { server } of running) server.close()
    await closeAll(entries, pool, store, shared)
    if (tracing !== undefined) await flushTraces(tracing, log)
    throw err
  }
  const urlOf = (name: ListenerSpec['name']) => running.find((l) => l.name === name)?.url
  const url = urlOf('main')!
  const port = Number(new URL(url).port)
  const metricsUrl = core.metricsPort === undefined ? undefined : `${urlOf('metrics')}/metrics`
  const authUrl = urlOf('auth') ?? url

  const notices = entries.flatMap(({ hooks }) => hooks.notice?.(url) ?? [])
  log.info({ url, dataDir: core.dataDir, plugins: entries.map((e) => e.plugin.name) }, 'tollgate listening')

  let closing: Promise<void> | undefined
  return {
    url,
    port,
    metricsUrl,
    authUrl,
    config,
    log,
    metrics,
    notices,
    routes: listeners.flatMap((l) => l.routes.map((r) => ({ method: r.method, path: r.path, documented: r.documented !== false, described: isDescribed(r) }))),
    close(graceMs = core.shutdownGraceMs) {
      closing ??= (async () => {
        draining = true
        await drainListeners(running, graceMs, log)
        await Promise.allSettled([...background])
        await closeAll(entries, pool, store, shared)
        if (tracing !== undefined) await flushTraces(tracing, log)
        log.info('tollgate stopped')
      })()
      return closing
    },
  }
}

interface ListenerSpec {
  readonly name: 'main' | 'metrics' | 'auth'
  readonly port: number
  readonly routes: Route[]
}

interface Listening {
  readonly name: ListenerSpec['name']
  readonly url: string
  readonly server: Server
  readonly handler: RequestHandler
}

async function listen(server: Server, handler: RequestHandler, spec: ListenerSpec, host: string): Promise<Listening> {
  server.listen(spec.port, host)
  try {
    await once(server, 'listening')
  } catch (err) {
    throw listenError(err, spec, host)
  }
  const { port } = server.address() as AddressInfo
  return { name: spec.name, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, server, handler }
}

const PORT_SETTINGS: Record<ListenerSpec['name'], string> = { main: 'PORT', metrics: 'METRICS_PORT', auth: 'AUTH_PORT' }

/** The reasons a listener cannot open that an operator fixes in the config, said in one line. */
function listenError(err: unknown, spec: ListenerSpec, host: string): unknown {
  const code = (err as NodeJS.ErrnoException).code
  const setting = PORT_SETTINGS[spec.name]
  if (code === 'EADDRINUSE') return new ConfigError(`port ${spec.port} is in use (${setting})`)
  if (code === 'EACCES') return new ConfigError(`port ${spec.port} needs privileges this process does not have (${setting})`)
  if (code === 'EADDRNOTAVAIL') return new ConfigError(`${host} is not an address of this machine (HOST)`)
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new ConfigError(`${host} does not resolve to an address (HOST)`)
  return err
}

/** PostgreSQL away at start (the plugins' migrations need it), said in one line naming the setting. */
function startError(err: unknown): unknown {
  if (!(err instanceof DependencyUnavailableError)) return err
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : ''
  return err.dependency === 'postgres'
    ? new ConfigError(`PostgreSQL cannot be reached at start (DATABASE_URL)${cause}`)
    : new ConfigError(`Redis cannot be reached at start (REDIS_URL)${cause}`)
}

/** The spans still buffered go out, within a second: a collector that is down must not hold up the stop. */
async function flushTraces(tracing: Tracing, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), 1000)
  })
  try {
    if ((await Promise.race([tracing.shutdown(), deadline])) === 'late') log.warn('traces not all exported before the stop')
  } catch (err) {
    log.warn({ err }, 'traces could not be exported before the stop')
  } finally {
    clearTimeout(timer)
  }
}

interface SharedStores {
  readonly database: Database | undefined
  readonly redis: SharedRedis | undefined
  /** Opened with the database, once its table is migrated. */
  events?: SharedEventOutbox | undefined
}

async function closeAll(entries: ReadonlyArray<{ hooks: PluginHooks }>, pool: WorkerPool, store: Store, shared: SharedStores): Promise<void> {
  for (const { hooks } of [...entries].reverse()) await hooks.close?.()
  await pool.close()
  await store.flushed()
  await store.close()
  await shared.events?.close()
  await shared.database?.close()
  await shared.redis?.close()
}
