// Several gateway processes on one host (tollgate serve --workers N): node:cluster shares the
// port, LMDB shares the store, and /metrics on any worker answers for all of them by asking the
// primary, which gathers every serving worker's registry (cluster-metrics.ts).
import cluster, { type Worker } from 'node:cluster'
import { clusterMetricsGatherer } from './cluster-metrics.ts'

const READY = 'tollgate:ready'

interface PrimaryOptions {
  readonly workers: number
  /** shutdownGraceMs: the whole cluster's stop, counted from the signal. */
  readonly graceMs: number
  /** One line for the operator (stderr). */
  readonly log: (line: string) => void
  /** Registers the stop: `at` is performance.now() when the signal arrived, possibly before this call. */
  readonly onStop: (stop: (signal: string, at: number) => void) => void
}

/** Worker starts that may fail in a row, while no worker serves, before the primary gives up. */
const START_BUDGET = 3
const BACKOFF_FIRST_MS = 250
const BACKOFF_MAX_MS = 15_000
/** A worker that served this long died of something new: the backoff starts over. */
const STABLE_MS = 30_000

/**
 * The end of the grace that the workers leave to the primary: two seconds, or a quarter of a
 * shorter grace. A worker drains with the rest and has a quarter of the margin beyond it for
 * closing its store and exiting; the primary kills a worker still running after that and keeps
 * the last three quarters for its own exit, which on a busy machine can take more than a second
 * (it is done when the process is gone, not when it calls exit).
 */
function exitMarginMs(graceMs: number): number {
  return Math.min(2000, Math.floor(graceMs / 4))
}

export function workerGraceMs(graceMs: number): number {
  return graceMs - exitMarginMs(graceMs)
}

/** The wait before replacing a worker, after `youngDeaths` deaths in a row of workers that did not serve STABLE_MS. */
export function backoffMs(youngDeaths: number): number {
  return Math.min(BACKOFF_FIRST_MS * 2 ** (youngDeaths - 1), BACKOFF_MAX_MS)
}

interface WorkerState {
  ready: boolean
  readonly startedAt: number
}

/**
 * Starts the workers one at a time (the first one may seed a fresh store) and keeps N of them:
 * one that dies, before or after it is ready, is replaced after a backoff that doubles while
 * workers keep dying young. When START_BUDGET starts in a row fail and none serves, it logs why
 * and exits 1. SIGTERM/SIGINT, even during start-up, stop every worker gracefully; it exits 0
 * once they are gone, and at the latest when the grace is over, killing the workers still running.
 */
export function runPrimary(options: PrimaryOptions): void {
  const alive = new Map<Worker, WorkerState>()
  let starting: Worker | undefined
  let next: NodeJS.Timeout | undefined
  let failedStarts = 0
  /** Deaths in a row of workers that did not serve STABLE_MS, this one included. */
  let youngDeaths = 0
  let stopping = false

  const metrics = clusterMetricsGatherer<Worker>({
    serving: () => [...alive].filter(([, state]) => state.ready).map(([worker]) => worker),
    log: options.log,
  })
  cluster.on('message', (worker: Worker, message: { readonly type?: string }) => {
    if (message?.type === READY) return ready(worker)
    metrics(worker, message)
  })

  const serving = () => [...alive.values()].filter((w) => w.ready).length

  function fill(): void {
    if (stopping || starting !== undefined || next !== undefined || alive.size >= options.workers) return
    const worker = cluster.fork()
    alive.set(worker, { ready: false, startedAt: Date.now() })
    starting = worker
    worker.once('exit', (code, signal) => exited(worker, signal ?? `exit code ${code}`))
  }

  function ready(worker: Worker): void {
    const state = alive.get(worker)
    if (state === undefined) return
    state.ready = true
    if (starting === worker) starting = undefined
    failedStarts = 0
    fill()
  }

  function exited(worker: Worker, how: string): void {
    const state = alive.get(worker)!
    alive.delete(worker)
    if (starting === worker) starting = undefined
    if (stopping) {
      if (alive.size === 0) process.exit(0)
      return
    }
    const pid = worker.process.pid
    if (!state.ready && ++failedStarts >= START_BUDGET && serving() === 0) {
      options.log(`worker ${pid} exited before it was ready (${how}); ${failedStarts} worker starts in a row failed and none is serving: giving up`)
      for (const other of alive.keys()) other.process.kill('SIGKILL')
      process.exit(1)
    }
    youngDeaths = state.ready && Date.now() - state.startedAt >= STABLE_MS ? 1 : youngDeaths + 1
    const delay = backoffMs(youngDeaths)
    options.log(`worker ${pid} exited ${state.ready ? '' : 'before it was ready '}(${how}); starting another in ${delay} ms`)
    // One start at a time: a start already planned replaces this worker too, once it is ready.
    if (next !== undefined) return
    next = setTimeout(() => {
      next = undefined
      fill()
    }, delay)
  }

  function stop(signal: string, at: number): void {
    if (stopping) return
    stopping = true
    clearTimeout(next)
    options.log(`${signal}: stopping ${alive.size} worker${alive.size === 1 ? '' : 's'}`)
    if (alive.size === 0) process.exit(0)
    for (const worker of alive.keys()) worker.process.kill('SIGTERM')
    const killAt = at + options.graceMs - (exitMarginMs(options.graceMs) * 3) / 4
    setTimeout(
      () => {
        const late = [...alive.keys()]
        for (const worker of late) worker.process.kill('SIGKILL')
        options.log(`the grace is nearly over: killed worker${late.length === 1 ? '' : 's'} ${late.map((w) => w.process.pid).join(', ')}, still stopping`)
        process.exit(0)
      },
      Math.max(0, killAt - performance.now()),
    )
  }

  options.onStop(stop)
  fill()
}

/** In a worker: tells the primary the gateway is up (no-op in a single process). */
export function announceReady(): void {
  if (cluster.isWorker) process.send!({ type: READY })
}

export const isClusterWorker = () => cluster.isWorker
