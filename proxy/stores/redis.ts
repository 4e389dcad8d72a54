// Redis (or Valkey) for the hot state several gateways share (REDIS_URL). One connection per
// process, set to fail a command at once while the server is away instead of queueing it: a
// request that needs Redis gets a 503 within a second, and the connection comes back by itself.
import { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { DependencyUnavailableError } from '../pipeline/errors.ts'

export interface SharedRedis {
  /** The connection; commands sent while it is down reject at once. */
  readonly client: Redis
  /** Keys of one plugin start with this, so no plugin reads another's. */
  prefix(namespace: string): string
  /** Runs a command, turning "the server is away" into DependencyUnavailableError. */
  run<T>(command: (client: Redis) => Promise<T>): Promise<T>
  isUp(): boolean
  /** Resolves once connected, or after the connect timeout: a gateway starts either way, unready while Redis is away. */
  connected(): Promise<void>
  close(): Promise<void>
}

const COMMAND_TIMEOUT_MS = 1_000
const CONNECT_TIMEOUT_MS = 2_000

export function openRedis(url: string, log: Logger): SharedRedis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Reconnects forever, backing off to one attempt a second.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  })
  let warned = false
  client.on('error', (err: Error) => {
    if (warned) return
    warned = true
    log.warn({ err }, 'Redis is unreachable; requests that need it answer 503 until it is back')
  })
  client.on('ready', () => {
    warned = false
  })
  return {
    client,
    prefix: (namespace) => `tollgate:${namespace}:`,
    async run(command) {
      if (client.status !== 'ready') throw new DependencyUnavailableError('redis')
      try {
        return await command(client)
      } catch (err) {
        if (isUnreachable(err)) throw new DependencyUnavailableError('redis', 1, { cause: err })
        throw err
      }
    },
    isUp: () => client.status === 'ready',
    async connected() {
      if (client.status === 'ready') return
      let timer: NodeJS.Timeout | undefined
      let resolveReady = () => {}
      await new Promise<void>((resolve) => {
        resolveReady = resolve
        timer = setTimeout(resolve, CONNECT_TIMEOUT_MS)
        client.once('ready', resolve)
      })
      clearTimeout(timer)
      client.off('ready', resolveReady)
    },
    async close() {
      client.disconnect()
    },
  }
}

function isUnreachable(err: unknown): boolean {
  const message = err instanceof Error ? err.message : ''
  const code = (err as { code?: unknown }).code
  return GONE.test(message) || (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)$/.test(code))
}

const GONE = /Command timed out|Connection is closed|Stream isn't writeable|enableOfflineQueue|max retries per request|LOADING/i
