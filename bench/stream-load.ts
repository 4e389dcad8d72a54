// Closed-loop streaming load with the undici client: `connections` streams open at all times,
// each replaced by the next request as soon as it has fully arrived. Nothing is recorded during
// the warm-up; a stream counts in the measured window when it started in it. After the window
// the open streams get `drainMs` to finish; one that does not counts as stalled.
import { performance } from 'node:perf_hooks'
import { sendOnce, poolFor, type StreamSample, type StreamTarget } from './stream-client.ts'
import { ascending, percentile } from './stats.ts'

export interface StreamLoadSettings {
  readonly connections: number
  readonly warmupSeconds: number
  readonly durationSeconds: number
  /** A wait for the next byte longer than this is a stall. */
  readonly stallMs: number
  /** How long streams still open at the end of the window may take to finish. */
  readonly drainMs: number
}

export interface StreamMeasurement {
  /** Finished streams per second of the measured window. */
  readonly streamsPerSecond: number
  readonly ttfbP50Ms: number
  readonly ttfbP99Ms: number
  /** Time to the first text (NaN when the target has no text marker). */
  readonly ttftP99Ms: number
  /** Time to the last byte. */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly ok: number
  /** Non-2xx, errors, cut streams. */
  readonly failed: number
  /** Streams with a wait longer than stallMs, or still open when the drain ran out. */
  readonly stalls: number
  /** Up to three distinct reasons for failures. */
  readonly problems: readonly string[]
  /** Every answer that arrived, warm-up and drain included: what the server's CPU was spent on. */
  readonly answeredTotal: number
  /** The finished streams' times to the first and to the last byte, ascending. */
  readonly ttfbs: readonly number[]
  readonly totals: readonly number[]
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export async function runStreamLoad(target: StreamTarget, settings: StreamLoadSettings): Promise<StreamMeasurement> {
  const pool = poolFor(target, settings.connections)
  const began = performance.now()
  const windowStart = began + settings.warmupSeconds * 1000
  const windowEnd = windowStart + settings.durationSeconds * 1000
  const measured: StreamSample[] = []
  let unfinished = 0
  let answeredTotal = 0
  let isCounting = true

  async function worker(): Promise<void> {
    while (performance.now() < windowEnd) {
      const sample = await sendOnce(pool, target)
      if (!isCounting) return
      answeredTotal++
      if (sample.startedAt >= windowStart && sample.startedAt < windowEnd) measured.push(sample)
    }
  }

  const workers = Array.from({ length: settings.connections }, () => {
    const running = worker()
    running.then(undefined, () => undefined)
    return running
  })
  let open = workers.length
  const allDone = Promise.all(workers.map((w) => w.finally(() => open--)))
  await sleep(Math.max(0, windowEnd - performance.now()))
  const drained = await Promise.race([allDone.then(() => true), sleep(settings.drainMs).then(() => false)])
  if (!drained) {
    unfinished = open
    isCounting = false
  }
  await pool.destroy().catch(() => undefined)

  const completed = measured.filter((s) => s.isComplete)
  const ttfb = ascending(completed.map((s) => s.ttfbMs))
  const total = ascending(completed.map((s) => s.totalMs))
  const problems = [...new Set(measured.flatMap((s) => (s.problem === undefined ? [] : [s.problem])))].slice(0, 3)
  return {
    streamsPerSecond: completed.length / settings.durationSeconds,
    ttfbP50Ms: percentile(ttfb, 50),
    ttfbP99Ms: percentile(ttfb, 99),
    ttftP99Ms: percentile(ascending(completed.map((s) => s.ttftMs)), 99),
    p50Ms: percentile(total, 50),
    p99Ms: percentile(total, 99),
    ok: completed.length,
    failed: measured.length - completed.length,
    stalls: measured.filter((s) => s.maxGapMs > settings.stallMs).length + unfinished,
    answeredTotal,
    ttfbs: ttfb,
    totals: total,
    problems: unfinished > 0 ? [...problems, `${unfinished} still open ${settings.drainMs} ms after the window`] : problems,
  }
}
