// Coalesces concurrent identical misses in this process: the first request for a key leads (it
// calls the model), the others wait for its answer. Processes sharing the store do not coalesce
// with each other; each one leads its own misses, and the stored answer serves them all later.

interface Flight<T> {
  readonly leader: object
  readonly answer: Promise<T | undefined>
  readonly settle: (answer: T | undefined) => void
}

export class InFlight<T> {
  readonly #flights = new Map<string, Flight<T>>()

  /** The leader's answer for key, or undefined when no request for key is in flight. */
  answerFor(key: string): Promise<T | undefined> | undefined {
    return this.#flights.get(key)?.answer
  }

  lead(key: string, leader: object): void {
    const { promise, resolve } = Promise.withResolvers<T | undefined>()
    this.#flights.set(key, { leader, answer: promise, settle: resolve })
  }

  /** Hands the leader's answer to its followers. */
  answer(key: string, leader: object, answer: T): void {
    const flight = this.#flights.get(key)
    if (flight?.leader === leader) flight.settle(answer)
  }

  /** Ends the leader's flight; followers still waiting get undefined and proceed on their own. */
  end(key: string, leader: object): void {
    const flight = this.#flights.get(key)
    if (flight?.leader !== leader) return
    flight.settle(undefined)
    this.#flights.delete(key)
  }
}

/** Resolves with the answer, or with undefined as soon as signal aborts. */
export function untilAborted<T>(answer: Promise<T | undefined>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    const stop = () => resolve(undefined)
    signal.addEventListener('abort', stop, { once: true })
    answer.then((value) => {
      signal.removeEventListener('abort', stop)
      resolve(value)
    })
  })
}
