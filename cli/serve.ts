// `tollgate serve`: the gateway in the foreground, stopped gracefully by SIGTERM or SIGINT; with
// --workers N, N processes sharing the port and the store.
import cluster from 'node:cluster'
import { announceReady, runPrimary, workerGraceMs } from '../proxy/cluster.ts'
import { loadConfig } from '../proxy/config.ts'
import { start, type Gateway, type StartOptions } from '../proxy/index.ts'
import { builtinPlugins } from '../plugins/index.ts'
import { onParentExit } from './parent-watch.ts'
import { onStopSignal, type StopRequest } from './stop-signals.ts'

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
    const config = loadConfig(builtinPlugins, process.env, options.overrides)
    return runPrimary({
      workers,
      graceMs: config.core.shutdownGraceMs,
      log: (line) => process.stderr.write(`tollgate: ${line}\n`),
      onStop: (stop) => onStopSignal(({ signal, at }) => stop(signal, at)),
    })
  }
  // A signal during start-up stops the gateway as soon as it is up.
  let stopRequested: StopRequest | undefined
  let gateway: Gateway | undefined
  onStopSignal((request) => {
    stopRequested = request
    if (gateway !== undefined) shutDown(gateway, request)
  })
  const overrides =
    workers > 1
      ? {
          ...options.overrides,
          plugins: {
            ...(options.overrides?.plugins as object | undefined),
            'rate-limit': { shared: true },
            metering: { shared: true },
            accounts: { shared: true },
          },
        }
      : options.overrides
  gateway = await start(overrides === undefined ? options : { ...options, overrides })
  for (const notice of gateway.notices) process.stdout.write(`${notice}\n`)
  process.stdout.write(`Tollgate is listening on ${gateway.url}${gateway.metricsUrl === undefined ? '' : ` (metrics on ${gateway.metricsUrl})`}\n`)
  announceReady()
  if (stopRequested !== undefined) shutDown(gateway, stopRequested)
}

/** The grace is counted from the signal; a worker's is shorter, so that the primary's deadline covers it. */
function shutDown(gateway: Gateway, { signal, at }: StopRequest): void {
  const grace = cluster.isWorker ? workerGraceMs(gateway.config.core.shutdownGraceMs) : gateway.config.core.shutdownGraceMs
  const graceMs = Math.max(0, Math.round(grace - (performance.now() - at)))
  gateway.log.info({ reason: signal, graceMs }, 'shutting down')
  gateway.close(graceMs).then(
    () => process.exit(0),
    (err: unknown) => {
      gateway.log.error({ err }, 'shutdown failed')
      process.exit(1)
    },
  )
}
