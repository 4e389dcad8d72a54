// Runs under a key in this process, so that a retry arriving meanwhile waits for the run to end
// instead of answering 409 at once. Across processes there is nothing to wait on: 409.

interface Flight {
  readonly requestId: string
  readonly ended: Promise<void>
  readonly end: () => void
}

export class LocalFlights {
  readonly #flights = new Map<string, Flight>()

  start(key: string, requestId: string): void {
    const { promise, resolve } = Promise.withResolvers<void>()
    this.#flights.set(key, { requestId, ended: promise, end: resolve })
  }

  /** Resolves when requestId's run ends; undefined when it does not run here. */
  endOf(key: string, requestId: string): Promise<void> | undefined {
    const flight = this.#flights.get(key)
    return flight?.requestId === requestId ? flight.ended : undefined
  }

  /** Call once the run's record holds its final state (answered, or removed). */
  end(key: string, requestId: string): void {
    const flight = this.#flights.get(key)
    if (flight?.requestId !== requestId) return
    this.#flights.delete(key)
    flight.end()
  }
}

type WaitOutcome = 'ended' | 'timeout' | 'aborted'

/** Waits for `ended`, at most `ms`, and no longer than the client stays. */
export function waitForEnd(ended: Promise<void>, signal: AbortSignal, ms: number): Promise<WaitOutcome> {
  if (signal.aborted) return Promise.resolve('aborted')
  return new Promise((resolve) => {
    const finish = (outcome: WaitOutcome) => {
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      resolve(outcome)
    }
    const onAbort = () => finish('aborted')
    const timer = setTimeout(() => finish('timeout'), ms)
    signal.addEventListener('abort', onAbort, { once: true })
    ended.then(() => finish('ended'))
  })
}
