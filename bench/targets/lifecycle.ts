// The life of a benchmark child: read its spec from argv, announce readiness to the parent, report
// its CPU time when asked, and stop cleanly when the parent asks (SIGTERM), on Ctrl-C, or when the
// parent is gone (the IPC channel closes), so no child outlives a run.
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ChildMessage, ParentMessage } from '../child-message.ts'

/** The JSON spec the parent passed as the first argument. */
export function specOf<S>(): S {
  const raw = process.argv[2]
  if (raw === undefined) throw new Error('missing the JSON spec argument')
  return JSON.parse(raw) as S
}

function send<I>(message: ChildMessage<I>): void {
  process.send?.(message)
}

export interface Booted<I> {
  readonly info: I
  stop(): Promise<void>
  /** The CPU time to report, when it is not this process's own (servers this process runs). */
  cpuMicros?(): number
}

/** Runs `boot`, reports its info as ready, and calls `stop` once on the first shutdown signal. */
export async function runChild<I>(boot: () => Promise<Booted<I>>): Promise<void> {
  let booted: Booted<I>
  try {
    booted = await boot()
  } catch (err) {
    send<I>({ type: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) })
    process.exit(1)
  }
  let stopping = false
  const shutdown = () => {
    if (stopping) return
    stopping = true
    booted.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err)
        process.exit(1)
      },
    )
  }
  process.on('SIGTERM', shutdown)
  process.on('SIGINT', shutdown)
  process.on('disconnect', shutdown)
  process.on('message', (message: ParentMessage) => {
    if (message.type !== 'cpu-usage') return
    const { user, system } = process.cpuUsage()
    send<I>({ type: 'cpu-usage', micros: booted.cpuMicros?.() ?? user + system })
  })
  send({ type: 'ready', info: booted.info })
}

/** Listens on a free loopback port; `stop` closes every connection, then anything else `cleanup` releases. */
export async function listenLoopback(server: Server, cleanup?: () => Promise<void>): Promise<{ info: { url: string }; stop: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    info: { url: `http://127.0.0.1:${port}` },
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await cleanup?.()
    },
  }
}
