// Child entry: the real gateway on a fresh data directory (and on the shared PostgreSQL and Redis
// when it is given them), seeded with the benchmark's project, every OpenAI model routed to the
// mock upstream, optionally with its own Governor settings, plan limits and provider pool size.
// Logs at warn, so request lines cost what a production setting costs. The directory lives and
// dies with this process, so it is removed even when the parent is killed outright.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { z } from 'zod'
import type { governorSchema } from '../../plugins/governor/schema.ts'
import type { rateLimitSchema } from '../../plugins/rate-limit/schema.ts'
import { builtinPlugins } from '../../plugins/index.ts'
import { start } from '../../proxy/index.ts'
import { UPSTREAM_API_KEY } from '../payload.ts'
import { BENCH_SECRET, seedBenchProject } from '../seed.ts'
import { runChild, specOf } from './lifecycle.ts'

export interface GatewaySpec {
  readonly upstreamUrl: string
  /** Overrides of the Governor plugin's settings; its defaults otherwise. */
  readonly governor?: z.input<typeof governorSchema>
  /** Overrides of the rate-limit plugin's settings (its plan table); its defaults otherwise. */
  readonly rateLimit?: z.input<typeof rateLimitSchema>
  /** Sockets per provider origin (the router's `connections`); its default otherwise. */
  readonly upstreamConnections?: number
  /** OTEL_EXPORTER_OTLP_ENDPOINT: tracing on, exporting there; off otherwise. */
  readonly otlpEndpoint?: string
  /** DATABASE_URL and REDIS_URL: the records on the shared stores instead of LMDB. */
  readonly sharedStores?: { readonly databaseUrl: string; readonly redisUrl: string }
  /** The built-in plugins to run, by name; all of them otherwise. */
  readonly plugins?: readonly string[]
}

export interface GatewayInfo {
  readonly url: string
  readonly dataDir: string
  readonly projectId: string
  readonly key: string
}

await runChild<GatewayInfo>(async () => {
  const spec = specOf<GatewaySpec>()
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'))
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true })
  try {
    const { projectId, key } = await seedBenchProject(dataDir, spec.sharedStores?.databaseUrl)
    const pluginSettings = {
      auth: { secret: BENCH_SECRET, demoOnFirstStart: false },
      ...(spec.governor === undefined ? {} : { governor: spec.governor }),
      ...(spec.rateLimit === undefined ? {} : { 'rate-limit': spec.rateLimit }),
      ...(spec.upstreamConnections === undefined ? {} : { router: { connections: spec.upstreamConnections } }),
    }
    // Settings only for the plugins that run: the configuration refuses settings of an absent one.
    const plugins = spec.plugins === undefined ? undefined : builtinPlugins.filter((plugin) => spec.plugins?.includes(plugin.name))
    const gateway = await start({
      ...(plugins === undefined ? {} : { plugins }),
      // Only these variables: settings from the caller's shell must not change what is measured.
      env: {
        OPENAI_BASE_URL: spec.upstreamUrl,
        OPENAI_API_KEY: UPSTREAM_API_KEY,
        LOG_LEVEL: 'warn',
        ...(spec.otlpEndpoint === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: spec.otlpEndpoint }),
        ...(spec.sharedStores === undefined ? {} : { DATABASE_URL: spec.sharedStores.databaseUrl, REDIS_URL: spec.sharedStores.redisUrl }),
      },
      overrides: {
        host: '127.0.0.1',
        port: 0,
        dataDir,
        shutdownGraceMs: 2000,
        plugins: Object.fromEntries(Object.entries(pluginSettings).filter(([name]) => spec.plugins?.includes(name) ?? true)),
      },
    })
    return {
      info: { url: gateway.url, dataDir, projectId, key },
      async stop() {
        await gateway.close()
        removeDataDir()
      },
    }
  } catch (err) {
    removeDataDir()
    throw err
  }
})
