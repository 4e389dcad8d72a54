// Writes that nothing waits for soon (settlements already journaled, cache answers already kept
// in memory) are committed in groups: every write queued while the previous group commits, or
// within `windowMs` of its start, goes in the next group's one transaction. Under load a process
// so takes at most one such commit per window instead of one per turn of the disk's sync, which
// is what processes sharing the store (serve --workers) contend on.
export interface TransactionRunner {
  transaction<T>(fn: () => T): Promise<T>
}

export interface GroupCommit {
  /** Runs fn in the next group's transaction; resolves with its result once that commits. */
  run<T>(fn: () => T): Promise<T>
}

interface Job {
  readonly fn: () => unknown
  readonly resolve: (value: unknown) => void
  readonly reject: (error: unknown) => void
}

type Outcome = { readonly value: unknown } | { readonly error: unknown }

export function groupCommit(runner: TransactionRunner, windowMs: number): GroupCommit {
  let queued: Job[] = []
  let committing = false
  let timer: NodeJS.Timeout | undefined
  let lastStart = Number.NEGATIVE_INFINITY

  function schedule(): void {
    if (committing || timer !== undefined || queued.length === 0) return
    const wait = lastStart + windowMs - performance.now()
    if (wait > 0) timer = setTimeout(startGroup, wait)
    else startGroup()
  }

  function startGroup(): void {
    timer = undefined
    committing = true
    lastStart = performance.now()
    const group = queued
    queued = []
    const outcomes: Outcome[] = []
    // Through a promise, so a store that throws at once (closed) rejects like one that fails later.
    new Promise<void>((resolve) => {
      resolve(
        runner.transaction(() => {
          // One job's failure is its own: the others' writes still commit.
          for (const job of group) {
            try {
              outcomes.push({ value: job.fn() })
            } catch (error) {
              outcomes.push({ error })
            }
          }
        }),
      )
    })
      .then(
        () =>
          group.forEach((job, i) => {
            const outcome = outcomes[i]!
            if ('error' in outcome) job.reject(outcome.error)
            else job.resolve(outcome.value)
          }),
        (error: unknown) => {
          for (const job of group) job.reject(error)
        },
      )
      .finally(() => {
        committing = false
        schedule()
      })
  }

  return {
    run<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queued.push({ fn, resolve: resolve as (value: unknown) => void, reject })
        schedule()
      })
    },
  }
}
