// `tollgate serve`: the gateway in the foreground, stopped gracefully by SIGTERM or SIGINT; with
// --workers N, N processes sharing the port and the store.
import cluster from 'node:cluster'
import { runPrimary } from '../proxy/cluster.ts'
import { start, type StartOptions } from '../proxy/index.ts'

export async function serve(options: StartOptions, workers: number): Promise<void> {
  if (workers > 1 && cluster.isPrimary) {
    return runPrimary({ workers, log: (line) => process.stderr.write(`${line}\n`) })
  }
  const overrides = workers > 1
    ? { ...options.overrides, plugins: { ...(options.overrides?.plugins as object | undefined), 'rate-limit': { shared: true }, metering: { shared: true }, accounts: { shared: true } } }
    : options.overrides
  const gateway = await start(overrides === undefined ? options : { ...options, overrides })
  for (const notice of gateway.notices) process.stdout.write(`${notice}\n`)
  process.stdout.write(`Tollgate is listening on ${gateway.url}${gateway.metricsUrl === undefined ? '' : ` (metrics on ${gateway.metricsUrl})`}\n`)
  const stop = (signal: string) => {
    gateway.log.info({ signal }, 'shutting down')
    gateway.close().then(() => process.exit(0), (err: unknown) => {
      gateway.log.error({ err }, 'shutdown failed')
      process.exit(1)
    })
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}
