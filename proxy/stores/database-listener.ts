// LISTEN on one channel over a connection of its own, kept open for the life of the gateway. A
// notification sent inside a transaction arrives when that transaction commits, on every gateway
// listening. While the connection is down notifications are lost, so each time it is made again
// the listener is told (`onConnected`) and reads afresh whatever it keeps.
import pg from 'pg'
import type { Logger } from 'pino'
import { DependencyUnavailableError } from '../pipeline/errors.ts'

export interface ListenHandlers {
  onNotification(payload: string): void
  /** After LISTEN took effect, on the first connection and on every one after a loss: no notification since is missed. */
  onConnected(): Promise<void>
}

export interface Listener {
  close(): Promise<void>
}

const RECONNECT_MS = 500

export async function listen(config: pg.ClientConfig, channel: string, handlers: ListenHandlers, log: Logger): Promise<Listener> {
  let client: pg.Client | undefined
  let closed = false
  let started = false
  let retry: NodeJS.Timeout | undefined

  async function connect(): Promise<void> {
    const next = new pg.Client(config)
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onNotification(message.payload ?? '')
    })
    // A dropped connection emits 'error' and then 'end'; one reconnection for both.
    next.on('error', () => undefined)
    next.once('end', () => {
      if (client !== next) return
      client = undefined
      if (closed || !started) return
      log.warn({ channel }, 'the PostgreSQL notification connection was lost; reconnecting')
      schedule()
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
    } catch (err) {
      await next.end().catch(() => undefined)
      throw new DependencyUnavailableError('postgres', 1, { cause: err })
    }
    client = next
    try {
      await handlers.onConnected()
    } catch (err) {
      // Ending it makes the next attempt, which reads everything again.
      await next.end().catch(() => undefined)
      throw err
    }
  }

  function schedule(): void {
    if (retry !== undefined || closed) return
    retry = setTimeout(() => {
      retry = undefined
      if (closed) return
      connect().catch(() => {
        if (client === undefined) schedule()
      })
    }, RECONNECT_MS)
    retry.unref()
  }

  await connect()
  started = true
  return {
    async close() {
      closed = true
      clearTimeout(retry)
      const last = client
      client = undefined
      await last?.end()
    },
  }
}
