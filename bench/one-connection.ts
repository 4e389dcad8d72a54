// Unloaded latency: one request at a time, to each target in turn, for the same span of time, so
// a gateway and the direct mock are measured under the same conditions (a busy neighbour slows
// both alike). Each target has its own single connection; the order rotates every round so that
// no target always follows the same one. Exact per-request times, sub-millisecond.
import { performance } from 'node:perf_hooks'
import { Client } from 'undici'
import { sendOnce, type StreamSample, type StreamTarget } from './stream-client.ts'
import { ascending, percentile } from './stats.ts'

export interface OneConnectionSettings {
  readonly warmupSeconds: number
  readonly durationSeconds: number
}

export interface OneConnectionMeasurement {
  readonly p50Ms: number
  readonly p99Ms: number
  readonly ttfbP50Ms: number
  readonly ttfbP99Ms: number
  readonly ok: number
  readonly failed: number
  readonly problems: readonly string[]
}

export async function runInterleaved(targets: readonly StreamTarget[], settings: OneConnectionSettings): Promise<OneConnectionMeasurement[]> {
  const clients = targets.map(
    (t) => new Client(new URL(t.load.url).origin, { pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000, keepAliveTimeout: 60_000 }),
  )
  const samples: StreamSample[][] = targets.map(() => [])
  try {
    const windowStart = performance.now() + settings.warmupSeconds * 1000
    const windowEnd = windowStart + settings.durationSeconds * 1000
    for (let round = 0; performance.now() < windowEnd; round++) {
      for (let i = 0; i < targets.length; i++) {
        const index = (round + i) % targets.length
        const sample = await sendOnce(clients[index]!, targets[index]!)
        if (sample.startedAt >= windowStart) samples[index]!.push(sample)
      }
    }
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)))
  }
  return samples.map((taken) => {
    const completed = taken.filter((s) => s.isComplete)
    const total = ascending(completed.map((s) => s.totalMs))
    const ttfb = ascending(completed.map((s) => s.ttfbMs))
    return {
      p50Ms: percentile(total, 50),
      p99Ms: percentile(total, 99),
      ttfbP50Ms: percentile(ttfb, 50),
      ttfbP99Ms: percentile(ttfb, 99),
      ok: completed.length,
      failed: taken.length - completed.length,
      problems: [...new Set(taken.flatMap((s) => (s.problem === undefined ? [] : [s.problem])))].slice(0, 3),
    }
  })
}
