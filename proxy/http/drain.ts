// The graceful stop of the listeners: stop accepting, let what is in flight finish, and end what
// is still running at the deadline so that the whole stop fits in the grace period.
import type { Server } from 'node:http'
import { Server as NetServer } from 'node:net'
import type { Logger } from 'pino'
import type { RequestHandler } from './server.ts'

interface DrainingListener {
  readonly server: Server
  readonly handler: RequestHandler
}

/**
 * The last part of the grace kept for ending the requests still in flight (their `error` events,
 * their metering) and closing the store: a second, or a fifth of a shorter grace. A supervisor
 * that kills after the same grace (docker stop: 10 s) then never kills a gateway still stopping.
 */
function cutReserveMs(graceMs: number): number {
  return Math.min(1000, Math.floor(graceMs / 5))
}

/**
 * Resolves once every listener has no request in flight (or the grace is over) and its connections
 * are closed. From the start, every answer closes its connection and a new request gets 503.
 */
export async function drainListeners(listeners: readonly DrainingListener[], graceMs: number, log: Logger): Promise<void> {
  for (const { server, handler } of listeners) {
    handler.drain()
    // No new connections. net's close, not http's: http's also drops the idle kept-alive
    // connections at once, and a request a client sends on one at that moment is lost without an
    // answer. Kept, such a request gets 503 with retry-after, and its connection closes after it.
    NetServer.prototype.close.call(server)
  }
  const drained = () => Promise.all(listeners.map((l) => l.handler.drained()))
  const reserve = cutReserveMs(graceMs)
  if (!(await settlesWithin(drained(), graceMs - reserve))) {
    const inFlight = listeners.reduce((sum, l) => sum + l.handler.inFlight(), 0)
    log.warn({ inFlight, graceMs }, 'shutdown grace over: ending the requests still in flight')
    for (const { handler } of listeners) handler.cut()
    await settlesWithin(drained(), reserve)
  }
  for (const { server } of listeners) {
    server.closeAllConnections()
    server.close()
  }
}

function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  return Promise.race([work.then(() => true), deadline]).finally(() => clearTimeout(timer))
}
