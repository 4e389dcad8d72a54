// Work on one key done in turns, each turn taking everything that arrived while the last one ran.
// Writes that all lock one row (a project's month of budget, its audit chain's head) wait for each
// other, and a transaction keeps that lock until its commit is on disk: one at a time, they could
// not go faster than the disk syncs (about 100 a second measured on PostgreSQL). In turns, those
// that queued behind a commit share the next one, so a busy project's throughput grows with its
// concurrency instead.
type Commit<T, R> = (batch: readonly T[]) => Promise<readonly R[]>

interface TurnOptions {
  readonly maxBatch: number
  /**
   * Whether a failed batch of several is retried one by one, so that an item failing for a
   * reason of its own fails alone. Not when the failure is everyone's (the database away).
   */
  readonly retryAlone: (err: unknown) => boolean
}

export function batchedTurns<T, R>(commit: Commit<T, R>, options: TurnOptions): (key: string, item: T) => Promise<R> {
  interface Waiting {
    readonly item: T
    resolve(result: R): void
    reject(err: unknown): void
  }
  /** Keys with a turn running, and what waits for the next. */
  const queues = new Map<string, Waiting[]>()

  async function run(key: string, batch: readonly Waiting[]): Promise<void> {
    try {
      const results = await commit(batch.map((w) => w.item))
      batch.forEach((w, i) => {
        w.resolve(results[i]!)
      })
    } catch (err) {
      if (batch.length > 1 && options.retryAlone(err)) {
        for (const w of batch) await commit([w.item]).then((results) => w.resolve(results[0]!), w.reject)
      } else {
        for (const w of batch) w.reject(err)
      }
    }
    const queue = queues.get(key)!
    if (queue.length === 0) queues.delete(key)
    else void run(key, queue.splice(0, options.maxBatch))
  }

  return (key, item) =>
    new Promise<R>((resolve, reject) => {
      const waiting = { item, resolve, reject }
      const queue = queues.get(key)
      if (queue !== undefined) {
        queue.push(waiting)
        return
      }
      queues.set(key, [])
      void run(key, [waiting])
    })
}
