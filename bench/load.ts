// One autocannon run against one target, reduced to the figures the report shows.
import autocannon from 'autocannon'
import type { LoadRequest } from './probe.ts'

export interface LoadSettings {
  readonly connections: number
  readonly durationSeconds: number
}

export interface Measurement {
  /** Mean of the per-second request counts. */
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** 2xx responses. */
  readonly ok: number
  readonly non2xx: number
  /** Connection errors, timeouts included. */
  readonly errors: number
  readonly timeouts: number
}

export async function runLoad(load: LoadRequest, settings: LoadSettings): Promise<Measurement> {
  const result = await autocannon({
    url: load.url,
    method: load.method,
    headers: { ...load.headers },
    ...(load.body === undefined ? {} : { body: load.body }),
    connections: settings.connections,
    duration: settings.durationSeconds,
    pipelining: 1,
  })
  return {
    requestsPerSecond: result.requests.mean,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }
}
