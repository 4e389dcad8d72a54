// start(): the only place that knows all parts. It loads the config, opens the store and the
// worker pool, sets up the plugins in order, builds the chain and the routes, and listens.
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { createServer } from 'node:http'
import { buildChain, assertPluginRules } from './chain.ts'
import { systemClock, type Clock } from './clock.ts'
import { loadConfig, type GatewayConfig } from './config.ts'
import { clusterMetricsSource, isClusterWorker } from './cluster.ts'
import { coreRoutes, metricsRoute, type MetricsSource } from './core-routes.ts'
import { createLogger, type Logger } from './log.ts'
import { createMetrics, type CoreMetrics } from './metrics.ts'
import { DEFAULT_PRICING, type Pricing } from './models.ts'
import type { GatewayPlugin, PluginHooks } from './plugin.ts'
import { createPool, type WorkerPool } from './pool.ts'
import { buildRouteTable, type Route } from './routes.ts'
import { createHandler, createHttpServer } from './server.ts'
import { openStore, type Store } from './store.ts'
import { builtinPlugins } from '../plugins/index.ts'

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
  readonly config: GatewayConfig
  readonly log: Logger
  readonly metrics: CoreMetrics
  /** Operator notices from plugins (e.g. the first-start demo key). */
  readonly notices: readonly string[]
  /** Stops accepting, lets in-flight requests finish within the grace period, then closes everything. */
  close(): Promise<void>
}

export async function start(options: StartOptions = {}): Promise<Gateway> {
  const plugins = options.plugins ?? builtinPlugins
  assertPluginRules(plugins)
  const config = loadConfig(plugins, options.env ?? process.env, options.overrides)
  const core = config.core
  const log = createLogger(core.logLevel, options.logDestination)
  const clock = options.clock ?? systemClock
  const pricing: Pricing = { ...DEFAULT_PRICING, ...core.pricing }
  const store = openStore(core.dataDir)
  const metrics = createMetrics()
  const pool = createPool(core.pool, metrics.registry)
  const background = new Set<Promise<unknown>>()
  const track = (work: Promise<unknown>) => {
    background.add(work)
    work.catch((err: unknown) => log.error({ err }, 'background work failed')).finally(() => background.delete(work))
  }

  const entries: Array<{ plugin: GatewayPlugin; hooks: PluginHooks }> = []
  try {
    for (const plugin of [...plugins].sort((a, b) => a.order - b.order)) {
      const hooks = await plugin.setup(config.plugins.get(plugin.name), {
        store: store.forPlugin(plugin.name), pool, metrics: metrics.registry, log: log.child({ plugin: plugin.name }), clock, pricing, track,
      })
      entries.push({ plugin, hooks })
    }
  } catch (err) {
    await closeAll(entries, pool, store)
    throw err
  }

  const chain = buildChain(entries, metrics)
  const pluginRoutes: Route[] = entries.flatMap(({ hooks }) =>
    (hooks.routes ?? []).map((spec) => ({ ...spec, keyTypes: spec.keyTypes ?? [], stream: false })),
  )
  const notReady = () => (store.isOpen() ? [] : ['store'])
  const metricsSource: MetricsSource = {
    text: isClusterWorker() ? clusterMetricsSource(metrics.registry) : () => metrics.registry.metrics(),
    contentType: metrics.registry.contentType,
  }
  const routes = buildRouteTable([...coreRoutes(metricsSource, notReady, core.metricsPort === undefined), ...pluginRoutes])
  const handler = createHandler({ config: core, routes, chain, metrics, log, clock, pricing })
  const server = createHttpServer(core, handler)
  server.listen(core.port, core.host)
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  const url = `http://${core.host.includes(':') ? `[${core.host}]` : core.host}:${port}`

  let metricsServer: Server | undefined
  let metricsUrl: string | undefined
  if (core.metricsPort !== undefined) {
    metricsServer = createServer(createHandler({ config: core, routes: buildRouteTable([metricsRoute(metricsSource)]), chain, metrics, log, clock, pricing }))
    metricsServer.listen(core.metricsPort, core.host)
    await once(metricsServer, 'listening')
    metricsUrl = `http://${core.host}:${(metricsServer.address() as AddressInfo).port}/metrics`
  }

  const notices = entries.flatMap(({ hooks }) => hooks.notice?.(url) ?? [])
  log.info({ url, dataDir: core.dataDir, plugins: entries.map((e) => e.plugin.name) }, 'tollgate listening')

  let closing: Promise<void> | undefined
  return {
    url, port, metricsUrl, config, log, metrics, notices,
    close() {
      closing ??= (async () => {
        server.close()
        metricsServer?.close()
        server.closeIdleConnections()
        const grace = new Promise<void>((resolve) => setTimeout(resolve, core.shutdownGraceMs).unref())
        await Promise.race([handler.drained(), grace])
        server.closeAllConnections()
        metricsServer?.closeAllConnections()
        await Promise.allSettled([...background])
        await closeAll(entries, pool, store)
        log.info('tollgate stopped')
      })()
      return closing
    },
  }
}

async function closeAll(entries: ReadonlyArray<{ hooks: PluginHooks }>, pool: WorkerPool, store: Store): Promise<void> {
  for (const { hooks } of [...entries].reverse()) await hooks.close?.()
  await pool.close()
  await store.flushed()
  await store.close()
}
