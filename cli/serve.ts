// `tollgate serve`: the gateway in the foreground, stopped gracefully by SIGTERM or SIGINT; with
// --workers N, N processes sharing the port and the store.
import cluster from 'node:cluster'
import { announceReady, runPrimary } from '../proxy/cluster.ts'
import { loadConfig } from '../proxy/config.ts'
import { start, type Gateway, type StartOptions } from '../proxy/index.ts'
import { builtinPlugins } from '../plugins/index.ts'
import { onParentExit } from './parent-watch.ts'

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const

export async function serve(options: StartOptions, workers: number): Promise<void> {
  // Started by npm: if npm goes away without passing its signal on (it signals the shell it
  // started, and `npx` cannot tell that shell to exec the gateway), stop as if signalled instead
  // of serving on as an orphan.
  if (process.env.npm_lifecycle_event !== undefined && cluster.isPrimary) {
    onParentExit(() => {
      process.stderr.write('tollgate: npm exited without passing its signal on; stopping\n')
      process.kill(process.pid, 'SIGTERM')
    })
  }
  if (workers > 1 && cluster.isPrimary) {
    // A bad setting fails here once, in one line, instead of in every worker the primary starts.
    loadConfig(builtinPlugins, process.env, options.overrides)
    return runPrimary({ workers, log: (line) => process.stderr.write(`tollgate: ${line}\n`) })
  }
  // Listening from the start: a signal during start-up stops the gateway as soon as it is up
  // (a terminal's Ctrl-C and `npm start` may deliver the same signal twice; the first one counts).
  let stopRequested: string | undefined
  let gateway: Gateway | undefined
  const stop = (reason: string) => {
    if (stopRequested !== undefined) return
    stopRequested = reason
    if (gateway !== undefined) shutDown(gateway, reason)
  }
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal))
  const overrides = workers > 1
    ? { ...options.overrides, plugins: { ...(options.overrides?.plugins as object | undefined), 'rate-limit': { shared: true }, metering: { shared: true }, accounts: { shared: true } } }
    : options.overrides
  gateway = await start(overrides === undefined ? options : { ...options, overrides })
  for (const notice of gateway.notices) process.stdout.write(`${notice}\n`)
  process.stdout.write(`Tollgate is listening on ${gateway.url}${gateway.metricsUrl === undefined ? '' : ` (metrics on ${gateway.metricsUrl})`}\n`)
  announceReady()
  if (stopRequested !== undefined) shutDown(gateway, stopRequested)
}

function shutDown(gateway: Gateway, reason: string): void {
  gateway.log.info({ reason, graceMs: gateway.config.core.shutdownGraceMs }, 'shutting down')
  gateway.close().then(() => process.exit(0), (err: unknown) => {
    gateway.log.error({ err }, 'shutdown failed')
    process.exit(1)
  })
}
