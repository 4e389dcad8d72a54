// `tollgate serve`: the gateway in the foreground, stopped gracefully by SIGTERM or SIGINT.
import { start, type StartOptions } from '../proxy/index.ts'

export async function serve(options: StartOptions): Promise<void> {
  const gateway = await start(options)
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
