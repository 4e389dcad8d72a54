// Closed-loop load on one target with autocannon, as the peer benchmark runs it: a fixed number
// of connections, each sending the next request when the previous answer has fully arrived.
// Latencies are the exact time to the last byte of every 2xx answer, not histogram buckets.
import autocannon from 'autocannon'
import type { LoadRequest } from './probe.ts'
import { ascending, percentile } from './stats.ts'

export interface LoadSettings {
  readonly connections: number
  readonly durationSeconds: number
}

export interface Measurement {
  /** 2xx answers per second of the run. */
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** 2xx answers. */
  readonly ok: number
  /** Non-2xx answers, connection errors and timeouts. */
  readonly failed: number
  readonly timeouts: number
  /** Every 2xx answer's time to the last byte, ascending. */
  readonly latencies: readonly number[]
}

export async function runLoad(load: LoadRequest, settings: LoadSettings): Promise<Measurement> {
  const latencies: number[] = []
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: load.url,
        method: load.method,
        headers: { ...load.headers },
        ...(load.body === undefined ? {} : { body: load.body }),
        connections: settings.connections,
        duration: settings.durationSeconds,
        pipelining: 1,
        timeout: 10,
      },
      (err, done) => (err ? reject(err) : resolve(done)),
    )
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms)
    })
  })
  const sorted = ascending(latencies)
  return {
    requestsPerSecond: result['2xx'] / result.duration,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    ok: result['2xx'],
    failed: result.non2xx + result.errors,
    timeouts: result.timeouts,
    latencies: sorted,
  }
}
