// The rows of the benchmark, in the order they run. Each names its target request, a probe that
// checks the row measures what its name says, and optionally a baseline with goals. A new row
// (streaming, …) is one more entry here; the Governor rows have a file of their own.
import { governorScenarios } from './governor-scenarios.ts'
import { COMPLETE_BODY, MODEL, OPENAI_BODY, OPENAI_HEADERS, completeHeaders } from './payload.ts'
import { send, type LoadRequest } from './probe.ts'

/** A running child process serving HTTP. */
export interface Server {
  readonly url: string
  /** CPU time (all threads) the process has used so far. */
  cpuMicros(): Promise<number>
}

export interface GatewayServer extends Server {
  readonly projectId: string
  /** The seeded project's `sk_prod_` key. */
  readonly key: string
}

export interface Targets {
  readonly mock: Server
  readonly forwarder: Server
  readonly gateway: GatewayServer
  /** A gateway whose Governor scans every text on the event loop and remembers no verdicts. */
  readonly gatewayInline: GatewayServer
  /** A gateway whose Governor scans every text in the worker pool and remembers no verdicts. */
  readonly gatewayPool: GatewayServer
  readonly staticFloor: Server
}

export interface ProbeResult {
  /** False when the target does not behave as the scenario's name says; the row is then relabelled and not judged. */
  readonly isAsNamed: boolean
  /** The row's name when it is not as named. */
  readonly label?: string
  readonly note: string
}

export interface Goals {
  /** Least acceptable req/s as a fraction of the baseline's. */
  readonly minRequestRatio?: number
  /** Largest acceptable p99 as a multiple of the baseline's. */
  readonly maxP99Ratio?: number
}

export interface Scenario {
  readonly name: string
  /** The process under load, whose CPU time per request the report shows. */
  readonly server: keyof Targets
  request(targets: Targets): LoadRequest
  probe(load: LoadRequest): Promise<ProbeResult>
  /** The scenario this one is compared with. */
  readonly baseline?: string
  readonly goals?: Goals
  /** Counters read before and after the measured run; the report shows how they moved. */
  audit?(targets: Targets): Promise<Readonly<Record<string, number>>>
  /** The server's own event-loop lag p99 over the measured run is reported (it serves prom-client's /metrics). */
  readonly measuresEventLoopLag?: boolean
}

const EXPECTED_MODEL = `openai/${MODEL}`

export function gatewayComplete(gateway: { readonly url: string; readonly key: string }, options: { readonly noStore: boolean }): LoadRequest {
  return {
    url: `${gateway.url}/api/ai/complete`,
    method: 'POST',
    headers: completeHeaders(gateway.key, options),
    body: COMPLETE_BODY,
  }
}

/** The project's cache hits and misses as the gateway's own usage endpoint counts them. */
async function meteredRequests(targets: Targets): Promise<Record<string, number>> {
  const { url, projectId, key } = targets.gateway
  const answer = await send({ url: `${url}/api/usage?projectId=${projectId}&period=month`, method: 'GET', headers: { 'x-api-key': key } })
  if (answer.status !== 200) throw new Error(`GET /api/usage answered ${answer.status}: ${answer.body}`)
  const usage = JSON.parse(answer.body) as { cache: { hits: number; misses: number } }
  return { 'metered misses': usage.cache.misses, 'metered hits': usage.cache.hits }
}

function expectOk(name: string) {
  return async (load: LoadRequest): Promise<ProbeResult> => {
    const { status } = await send(load)
    return status === 200
      ? { isAsNamed: true, note: 'probe: 200' }
      : { isAsNamed: false, label: `${name} (probe answered ${status})`, note: `probe: ${status}` }
  }
}

export const scenarios: readonly Scenario[] = [
  {
    name: 'direct',
    server: 'mock',
    request: (targets) => ({ url: `${targets.mock.url}/v1/chat/completions`, method: 'POST', headers: OPENAI_HEADERS, body: OPENAI_BODY }),
    probe: expectOk('direct'),
  },
  {
    name: 'bare forwarder',
    server: 'forwarder',
    request: (targets) => ({ url: `${targets.forwarder.url}/v1/chat/completions`, method: 'POST', headers: OPENAI_HEADERS, body: OPENAI_BODY }),
    probe: expectOk('bare forwarder'),
  },
  {
    name: 'gateway complete (miss)',
    server: 'gateway',
    request: (targets) => gatewayComplete(targets.gateway, { noStore: true }),
    async probe(load) {
      const answer = await send(load)
      const model = answer.headers['x-gateway-model'] ?? 'none'
      const cache = answer.headers['x-cache-status'] ?? 'none'
      const note = `probe: ${answer.status}, x-gateway-model ${model}, x-cache-status ${cache}`
      if (answer.status !== 200) return { isAsNamed: false, label: `gateway complete (miss) (probe answered ${answer.status})`, note }
      if (model !== EXPECTED_MODEL) return { isAsNamed: false, label: `gateway complete (miss) (NOT via mock: ${model})`, note }
      if (cache !== 'MISS') return { isAsNamed: false, label: `gateway complete (miss) (NOT MISS: ${cache})`, note }
      return { isAsNamed: true, note }
    },
    baseline: 'bare forwarder',
    goals: { minRequestRatio: 0.6, maxP99Ratio: 2 },
    audit: meteredRequests,
  },
  {
    name: 'static floor',
    server: 'staticFloor',
    request: (targets) => ({ url: `${targets.staticFloor.url}/api/ai/complete`, method: 'POST', headers: completeHeaders(targets.gateway.key, { noStore: false }), body: COMPLETE_BODY }),
    probe: expectOk('static floor'),
  },
  {
    name: 'gateway complete (cache hit)',
    server: 'gateway',
    request: (targets) => gatewayComplete(targets.gateway, { noStore: false }),
    async probe(load) {
      await send(load)
      const answer = await send(load)
      const cache = answer.headers['x-cache-status'] ?? 'none'
      const note = `probe: ${answer.status}, second answer's x-cache-status ${cache}`
      if (answer.status !== 200) return { isAsNamed: false, label: `gateway complete (cache hit) (probe answered ${answer.status})`, note }
      if (cache === 'MISS') return { isAsNamed: false, label: 'gateway complete cache hit (NOT HIT: cache off)', note }
      if (cache !== 'HIT') return { isAsNamed: false, label: `gateway complete cache hit (NOT HIT: ${cache})`, note }
      return { isAsNamed: true, note }
    },
    baseline: 'static floor',
    goals: { minRequestRatio: 0.5 },
    audit: meteredRequests,
  },
  ...governorScenarios,
]
