// The rows of `npm run bench`, lane by lane, in the order they run. A lane is one set of servers
// in front of one mock: the 0 ms mock (throughput, cache, governed, unloaded latency, and the miss
// and governed rows again with the records in PostgreSQL and Redis), the 20 ms mock (sustained
// throughput), the slowly streaming mock (concurrent streams), the 0 ms mock again for the
// gateway as `tollgate serve --workers N` (scaling), and, on request, the Governor placement rows.
import { governorCompleteBody } from './governor-payload.ts'
import { COMPLETE_BODY, OPENAI_BODY, OPENAI_HEADERS, OPENAI_STREAM_BODY, completeHeaders, uniqueCompleteBody, MODEL, type CacheControl } from './payload.ts'
import { placementSteps } from './placement-rows.ts'
import { send, type LoadRequest } from './probe.ts'
import { autocannonRow, interleavedStep, openStreamsStep, roundRobinStep, streamRow, type Lane, type ProbeResult, type Settings } from './rows.ts'
import { ENTERPRISE_LIMIT, type GatewayServer, type LaneServers, type Server } from './servers.ts'
import { sharedStoresMissing } from './shared-stores.ts'
import type { StreamTarget } from './stream-client.ts'
import type { OtlpSinkStats } from './targets/otlp-sink.ts'
import { routerSchema } from '../plugins/router/schema.ts'

/** The suffix of the rows whose gateway keeps its records in PostgreSQL and Redis instead of LMDB. */
const ON_SHARED = 'PostgreSQL + Redis'

export const ROW = {
  jsonDirect: 'json: direct mock',
  jsonForwarder: 'json: lean forwarder',
  missNoCache: 'json: complete miss (no-cache)',
  missTraced: 'json: complete miss (no-cache), OTel on',
  missNoStore: 'json: complete miss (no-store)',
  coreOnly: 'json: core and router only (no auth, cache, metering)',
  staticFloor: 'json: static floor',
  hit: 'json: complete cache hit',
  governed: 'json: governed (auth, rate limit, budget, Governor 1 KB)',
  missShared: `json: complete miss (no-cache), ${ON_SHARED}`,
  governedShared: `json: governed (auth, rate limit, budget, Governor 1 KB), ${ON_SHARED}`,
  streamDirect: 'stream: direct mock',
  streamForwarder: 'stream: lean forwarder',
  chatMiss: 'stream: chat miss (no-cache)',
  chatCoreOnly: 'stream: chat, core and router only (no auth, cache, metering)',
  oneDirect: '1 conn json: direct mock',
  oneForwarder: '1 conn json: lean forwarder',
  oneMiss: '1 conn json: complete miss (no-cache)',
  oneCoreOnly: '1 conn json: core and router only (no auth, cache, metering)',
  oneMissShared: `1 conn json: complete miss (no-cache), ${ON_SHARED}`,
  ttfbDirect: '1 conn stream: direct mock',
  ttfbForwarder: '1 conn stream: lean forwarder',
  ttfbChat: '1 conn stream: chat miss (no-cache)',
  sustainedDirect: '20 ms mock: direct',
  sustainedForwarder: '20 ms mock: lean forwarder',
  sustainedMiss: '20 ms mock: complete miss (no-cache)',
  streamsForwarder: (open: number) => `${open} streams: lean forwarder`,
  streamsChat: (open: number) => `${open} streams: chat miss (no-cache)`,
  scalingJsonForwarder: 'scaling json: lean forwarder',
  scalingJson: (workers: number) => `scaling json: complete miss (no-cache), --workers ${workers}`,
  scalingJsonLimited: (workers: number) => `scaling json: complete miss (no-cache), limited plan, --workers ${workers}`,
  scalingStreamForwarder: 'scaling stream: lean forwarder',
  scalingChat: (workers: number) => `scaling stream: chat miss (no-cache), --workers ${workers}`,
} as const

/** Whether `name` is a scaling row's, json or stream, and for how many workers. */
export function scalingRowOf(name: string): { readonly kind: 'json' | 'stream'; readonly workers: number } | undefined {
  const workers = Number(/, --workers (\d+)$/.exec(name)?.[1])
  if (name === ROW.scalingJson(workers)) return { kind: 'json', workers }
  if (name === ROW.scalingChat(workers)) return { kind: 'stream', workers }
  return undefined
}

/** The open-stream steps every full run takes; --stretch adds the next one. */
export const STREAM_STEPS = [32, 128, 512] as const
export const STRETCH_STEP = 2048

const EXPECTED_MODEL = `openai/${MODEL}`
const GATEWAY_DONE = 'event: done'
const OPENAI_DONE = '[DONE]'
const SLOW_STREAM = { latencyMs: 0, chunks: 20, chunkDelayMs: 50 }
export const SUSTAINED_LATENCY_MS = 20
// The gateway's default pool size, given to the forwarder too: the rows measure what a user runs.
const STREAM_LANE_CONNECTIONS = routerSchema.parse({}).connections

export const openai = (server: Server, body: string): LoadRequest => ({
  url: `${server.url}/v1/chat/completions`,
  method: 'POST',
  headers: OPENAI_HEADERS,
  body,
})
export const complete = (gateway: GatewayServer, cacheControl?: CacheControl, body = COMPLETE_BODY): LoadRequest => ({
  url: `${gateway.url}/api/ai/complete`,
  method: 'POST',
  headers: completeHeaders(gateway.key, cacheControl === undefined ? {} : { cacheControl }),
  body,
})
const chat = (gateway: GatewayServer): LoadRequest => ({
  url: `${gateway.url}/api/ai/chat`,
  method: 'POST',
  headers: completeHeaders(gateway.key, { cacheControl: 'no-cache' }),
  body: COMPLETE_BODY,
})

type GatewayOf = (servers: LaneServers) => Promise<GatewayServer>
const plainGateway: GatewayOf = (s) => s.gateway()
const sharedGateway: GatewayOf = (s) => s.gateway('plain', 'shared')
const governedSharedGateway: GatewayOf = (s) => s.gateway('governed', 'shared')

/** The project's cache hits and misses as the gateway's own usage endpoint counts them. */
async function meteredRequests(servers: LaneServers, gatewayOf: GatewayOf = plainGateway): Promise<Record<string, number>> {
  const { url, projectId, key } = await gatewayOf(servers)
  const answer = await send({ url: `${url}/api/usage?projectId=${projectId}&period=month`, method: 'GET', headers: { 'x-api-key': key } })
  if (answer.status !== 200) throw new Error(`GET /api/usage answered ${answer.status}: ${answer.body}`)
  const usage = JSON.parse(answer.body) as { cache: { hits: number; misses: number } }
  return { 'metered misses': usage.cache.misses, 'metered hits': usage.cache.hits }
}

function notAsNamed(name: string, why: string, note: string): ProbeResult {
  return { isAsNamed: false, label: `${name} (${why})`, note }
}

/** Whether an answer to `body` was stored: asked again without cache-control, is it a hit? */
async function isStored(gateway: GatewayServer, body: string): Promise<boolean> {
  // The store commits in the background; give it a moment. Asking twice would store it ourselves.
  await new Promise((resolve) => setTimeout(resolve, 200))
  const again = await send(complete(gateway, undefined, body))
  return again.headers['x-cache-status'] === 'HIT'
}

/** A miss row's probe: 200 from the mock's model, a MISS, and the answer stored (no-cache) or not (no-store). */
export function missProbe(name: string, cacheControl: CacheControl, gatewayOf: GatewayOf = plainGateway) {
  return async (load: LoadRequest, servers: LaneServers): Promise<ProbeResult> => {
    const answer = await send(load)
    const model = answer.headers['x-gateway-model'] ?? 'none'
    const cache = answer.headers['x-cache-status'] ?? 'none'
    const gateway = await gatewayOf(servers)
    const fresh = uniqueCompleteBody()
    await send(complete(gateway, cacheControl, fresh))
    const stored = await isStored(gateway, fresh)
    const note = `probe: ${answer.status}, x-gateway-model ${model}, x-cache-status ${cache}, a new question's answer ${stored ? 'was' : 'was not'} stored`
    if (answer.status !== 200) return notAsNamed(name, `probe answered ${answer.status}`, note)
    if (model !== EXPECTED_MODEL) return notAsNamed(name, `NOT via mock: ${model}`, note)
    if (cache !== 'MISS') return notAsNamed(name, `NOT MISS: ${cache}`, note)
    if (stored !== (cacheControl === 'no-cache'))
      return notAsNamed(name, stored ? 'NOT no-store: the answer was stored' : 'NOT a real miss: the answer was not stored', note)
    return { isAsNamed: true, note }
  }
}

/** A probe that also checks the answer carries X-RateLimit-Limit: the limit was checked. */
function limitedProbe(name: string, probe: ReturnType<typeof missProbe>) {
  return async (load: LoadRequest, servers: LaneServers): Promise<ProbeResult> => {
    const result = await probe(load, servers)
    if (!result.isAsNamed) return result
    const limit = (await send(load)).headers['x-ratelimit-limit']
    if (limit === undefined) return notAsNamed(name, 'NOT limited: no x-ratelimit-limit', result.note)
    return { ...result, note: `${result.note}, x-ratelimit-limit ${limit}` }
  }
}

/** 200 from the mock's model. */
export function viaMockProbe(name: string) {
  return async (load: LoadRequest): Promise<ProbeResult> => {
    const answer = await send(load)
    const model = answer.headers['x-gateway-model'] ?? 'none'
    const note = `probe: ${answer.status}, x-gateway-model ${model}`
    if (answer.status !== 200) return notAsNamed(name, `probe answered ${answer.status}`, note)
    if (model !== EXPECTED_MODEL) return notAsNamed(name, `NOT via mock: ${model}`, note)
    return { isAsNamed: true, note }
  }
}

/** A core-only row's probe: the row's own checks, and 200 without a key too (no auth in the way). */
export function withoutAuth(name: string, probe: (load: LoadRequest) => Promise<ProbeResult>) {
  return async (load: LoadRequest): Promise<ProbeResult> => {
    const result = await probe(load)
    const { 'x-api-key': _key, ...keyless } = load.headers
    const anonymous = await send({ ...load, headers: keyless })
    const note = `${result.note}; without a key ${anonymous.status}`
    if (!result.isAsNamed) return { ...result, note }
    if (anonymous.status !== 200) return notAsNamed(name, `NOT without auth: ${anonymous.status} without a key`, note)
    return { isAsNamed: true, note }
  }
}

/** The traced miss row's probe: a MISS from the mock's model, and its spans at the OTLP sink (exported within 5 s). */
async function tracedProbe(load: LoadRequest, servers: LaneServers): Promise<ProbeResult> {
  const answer = await send(load)
  const model = answer.headers['x-gateway-model'] ?? 'none'
  const cache = answer.headers['x-cache-status'] ?? 'none'
  const sink = await servers.otlpSink()
  let exports = 0
  for (let waited = 0; exports === 0 && waited < 8000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    exports = (JSON.parse((await send({ url: `${sink.url}/stats`, method: 'GET', headers: {} })).body) as OtlpSinkStats).exports
  }
  const note = `probe: ${answer.status}, x-gateway-model ${model}, x-cache-status ${cache}, ${exports} trace exports at the sink`
  if (answer.status !== 200) return notAsNamed(ROW.missTraced, `probe answered ${answer.status}`, note)
  if (model !== EXPECTED_MODEL || cache !== 'MISS') return notAsNamed(ROW.missTraced, `NOT a miss via mock: ${model} ${cache}`, note)
  if (exports === 0) return notAsNamed(ROW.missTraced, 'NOT traced: no export reached the sink', note)
  return { isAsNamed: true, note }
}

async function hitProbe(load: LoadRequest): Promise<ProbeResult> {
  await send(load)
  const answer = await send(load)
  const cache = answer.headers['x-cache-status'] ?? 'none'
  const note = `probe: ${answer.status}, second answer's x-cache-status ${cache}`
  if (answer.status !== 200) return notAsNamed(ROW.hit, `probe answered ${answer.status}`, note)
  if (cache !== 'HIT') return notAsNamed(ROW.hit, `NOT HIT: ${cache}`, note)
  return { isAsNamed: true, note }
}

export function chatProbe(name: string) {
  return async (load: LoadRequest): Promise<ProbeResult> => {
    const answer = await send(load)
    const type = answer.headers['content-type'] ?? 'none'
    const cache = answer.headers['x-cache-status'] ?? 'none'
    const note = `probe: ${answer.status}, ${type}, x-cache-status ${cache}, ${answer.body.includes(GATEWAY_DONE) ? 'ends with a done event' : 'NO done event'}`
    if (answer.status !== 200) return notAsNamed(name, `probe answered ${answer.status}`, note)
    if (!type.startsWith('text/event-stream')) return notAsNamed(name, `NOT a stream: ${type}`, note)
    if (cache !== 'MISS') return notAsNamed(name, `NOT MISS: ${cache}`, note)
    if (!answer.body.includes(GATEWAY_DONE)) return notAsNamed(name, 'stream not finished', note)
    return { isAsNamed: true, note }
  }
}

function governedProbe(name: string) {
  return async (load: LoadRequest): Promise<ProbeResult> => {
    const answer = await send(load)
    const validated = answer.headers['x-governor-validated'] ?? 'none'
    const limit = answer.headers['x-ratelimit-limit'] ?? 'none'
    const cache = answer.headers['x-cache-status'] ?? 'none'
    const note = `probe: ${answer.status}, x-governor-validated ${validated}, x-ratelimit-limit ${limit}, x-cache-status ${cache}`
    if (answer.status !== 200) return notAsNamed(name, `probe answered ${answer.status}`, note)
    if (validated !== 'true') return notAsNamed(name, `NOT governed: ${validated}`, note)
    if (limit !== String(ENTERPRISE_LIMIT.burst)) return notAsNamed(name, `NOT rate limited: ${limit}`, note)
    if (cache !== 'MISS') return notAsNamed(name, `NOT MISS: ${cache}`, note)
    return { isAsNamed: true, note }
  }
}

/** What a gateway's /readyz says of its shared stores: `postgres up, redis up` when both are in use and up. */
export function sharedStoresReadiness(status: number, body: string): { readonly up: boolean; readonly said: string } {
  let dependencies: Record<string, unknown> | undefined
  try {
    dependencies = (JSON.parse(body) as { dependencies?: Record<string, unknown> }).dependencies
  } catch {
    dependencies = undefined
  }
  const said = `/readyz ${status}, ${
    dependencies === undefined
      ? 'no dependencies'
      : Object.entries(dependencies)
          .map(([name, state]) => `${name} ${String(state)}`)
          .join(', ')
  }`
  return { up: status === 200 && dependencies?.postgres === 'up' && dependencies.redis === 'up', said }
}

/** `probe`, then the gateway's /readyz: a row on the shared stores must run on PostgreSQL and Redis, both up. */
function onSharedStores(name: string, gatewayOf: GatewayOf, probe: (load: LoadRequest, servers: LaneServers) => Promise<ProbeResult>) {
  return async (load: LoadRequest, servers: LaneServers): Promise<ProbeResult> => {
    const first = await probe(load, servers)
    const ready = await send({ url: `${(await gatewayOf(servers)).url}/readyz`, method: 'GET', headers: {} })
    const { up, said } = sharedStoresReadiness(ready.status, ready.body)
    const note = `${first.note}, ${said}`
    if (!first.isAsNamed) return { ...first, note }
    return up ? { isAsNamed: true, note } : notAsNamed(name, 'NOT on PostgreSQL + Redis, both up', note)
  }
}

/** The CPU PostgreSQL and Redis used, which a shared-store row's CPU per answer already includes. */
async function sharedStoresCpu(servers: LaneServers): Promise<Record<string, number>> {
  return { 'PostgreSQL + Redis CPU ms': Math.round((await (await servers.sharedStores()).cpuMicros()) / 1000) }
}

// The first chunk with some of the answer's text: an OpenAI delta whose content is not empty (the
// opening one carries only the role), the gateway's first delta event.
const OPENAI_TEXT = /"content":"[^"]/
const GATEWAY_TEXT = /event: delta/
export const openaiStream = (server: Server): StreamTarget => ({ load: openai(server, OPENAI_STREAM_BODY), endMarker: OPENAI_DONE, textMarker: OPENAI_TEXT })
export const chatStream = (gateway: GatewayServer): StreamTarget => ({ load: chat(gateway), endMarker: GATEWAY_DONE, textMarker: GATEWAY_TEXT })
const json = (load: LoadRequest): StreamTarget => ({ load })

const ZERO_MS_SETUP = { mock: { latencyMs: 0, chunks: 8, chunkDelayMs: 0 }, upstreamConnections: routerSchema.parse({}).connections }

const zeroMsLane: Lane = {
  name: '0 ms mock',
  description: 'mock answers at once; streams are 8 events written back to back',
  setup: ZERO_MS_SETUP,
  steps: [
    roundRobinStep([
      autocannonRow({
        name: ROW.jsonDirect,
        target: async (s) => {
          const mock = await s.mock()
          return { server: mock, load: openai(mock, OPENAI_BODY) }
        },
      }),
      autocannonRow({
        name: ROW.jsonForwarder,
        target: async (s) => {
          const fwd = await s.forwarder()
          return { server: fwd, load: openai(fwd, OPENAI_BODY) }
        },
      }),
      autocannonRow({
        name: ROW.missNoCache,
        baseline: ROW.jsonForwarder,
        target: async (s) => {
          const g = await s.gateway()
          return { server: g, load: complete(g, 'no-cache') }
        },
        probe: missProbe(ROW.missNoCache, 'no-cache'),
        audit: meteredRequests,
      }),
      autocannonRow({
        name: ROW.missTraced,
        baseline: ROW.missNoCache,
        target: async (s) => {
          const g = await s.gateway('traced')
          return { server: g, load: complete(g, 'no-cache') }
        },
        probe: tracedProbe,
      }),
      autocannonRow({
        name: ROW.missNoStore,
        baseline: ROW.jsonForwarder,
        target: async (s) => {
          const g = await s.gateway()
          return { server: g, load: complete(g, 'no-store') }
        },
        probe: missProbe(ROW.missNoStore, 'no-store'),
        audit: meteredRequests,
      }),
      autocannonRow({
        name: ROW.coreOnly,
        baseline: ROW.jsonForwarder,
        target: async (s) => {
          const g = await s.gateway('core only')
          return { server: g, load: complete(g) }
        },
        probe: withoutAuth(ROW.coreOnly, viaMockProbe(ROW.coreOnly)),
      }),
      autocannonRow({
        name: ROW.staticFloor,
        target: async (s) => {
          const [floor, g] = await Promise.all([s.staticFloor(), s.gateway()])
          return { server: floor, load: { ...complete(g), url: `${floor.url}/api/ai/complete` } }
        },
      }),
      autocannonRow({
        name: ROW.hit,
        baseline: ROW.staticFloor,
        target: async (s) => {
          const g = await s.gateway()
          return { server: g, load: complete(g) }
        },
        probe: hitProbe,
        audit: meteredRequests,
      }),
      autocannonRow({
        name: ROW.governed,
        baseline: ROW.jsonForwarder,
        target: async (s) => {
          const g = await s.gateway('governed')
          return { server: g, load: complete(g, 'no-cache', governorCompleteBody(1024, { withMetadata: true })) }
        },
        probe: governedProbe(ROW.governed),
      }),
      autocannonRow({
        name: ROW.missShared,
        baseline: ROW.missNoCache,
        unavailable: sharedStoresMissing,
        target: async (s) => {
          const g = await sharedGateway(s)
          return { server: g, load: complete(g, 'no-cache') }
        },
        probe: onSharedStores(ROW.missShared, sharedGateway, missProbe(ROW.missShared, 'no-cache', sharedGateway)),
        audit: async (s) => ({ ...(await meteredRequests(s, sharedGateway)), ...(await sharedStoresCpu(s)) }),
      }),
      autocannonRow({
        name: ROW.governedShared,
        baseline: ROW.governed,
        unavailable: sharedStoresMissing,
        target: async (s) => {
          const g = await governedSharedGateway(s)
          return { server: g, load: complete(g, 'no-cache', governorCompleteBody(1024, { withMetadata: true })) }
        },
        probe: onSharedStores(ROW.governedShared, governedSharedGateway, governedProbe(ROW.governedShared)),
        audit: sharedStoresCpu,
      }),
    ]),
    roundRobinStep([
      streamRow({
        name: ROW.streamDirect,
        target: async (s) => {
          const mock = await s.mock()
          return { server: mock, stream: openaiStream(mock) }
        },
      }),
      streamRow({
        name: ROW.streamForwarder,
        target: async (s) => {
          const fwd = await s.forwarder()
          return { server: fwd, stream: openaiStream(fwd) }
        },
      }),
      streamRow({
        name: ROW.chatMiss,
        baseline: ROW.streamForwarder,
        target: async (s) => {
          const g = await s.gateway()
          return { server: g, stream: chatStream(g) }
        },
        probe: chatProbe(ROW.chatMiss),
      }),
      streamRow({
        name: ROW.chatCoreOnly,
        baseline: ROW.streamForwarder,
        target: async (s) => {
          const g = await s.gateway('core only')
          return { server: g, stream: chatStream(g) }
        },
        probe: withoutAuth(ROW.chatCoreOnly, chatProbe(ROW.chatCoreOnly)),
      }),
    ]),
    interleavedStep([
      { name: ROW.oneDirect, target: async (s) => json(openai(await s.mock(), OPENAI_BODY)) },
      { name: ROW.oneForwarder, target: async (s) => json(openai(await s.forwarder(), OPENAI_BODY)) },
      { name: ROW.oneMiss, target: async (s) => json(complete(await s.gateway(), 'no-cache')) },
      {
        name: ROW.oneCoreOnly,
        target: async (s) => json(complete(await s.gateway('core only'))),
        probe: withoutAuth(ROW.oneCoreOnly, viaMockProbe(ROW.oneCoreOnly)),
      },
      {
        name: ROW.oneMissShared,
        unavailable: sharedStoresMissing,
        target: async (s) => json(complete(await sharedGateway(s), 'no-cache')),
        probe: onSharedStores(ROW.oneMissShared, sharedGateway, missProbe(ROW.oneMissShared, 'no-cache', sharedGateway)),
      },
    ]),
    interleavedStep([
      { name: ROW.ttfbDirect, target: async (s) => openaiStream(await s.mock()) },
      { name: ROW.ttfbForwarder, target: async (s) => openaiStream(await s.forwarder()) },
      { name: ROW.ttfbChat, target: async (s) => chatStream(await s.gateway()) },
    ]),
  ],
}

const sustainedLane: Lane = {
  name: '20 ms mock',
  description: `mock waits ${SUSTAINED_LATENCY_MS} ms before every answer`,
  setup: { mock: { latencyMs: SUSTAINED_LATENCY_MS, chunks: 8, chunkDelayMs: 0 }, upstreamConnections: routerSchema.parse({}).connections },
  steps: [
    roundRobinStep([
      autocannonRow({
        name: ROW.sustainedDirect,
        connections: 'sustained',
        target: async (s) => {
          const mock = await s.mock()
          return { server: mock, load: openai(mock, OPENAI_BODY) }
        },
      }),
      autocannonRow({
        name: ROW.sustainedForwarder,
        connections: 'sustained',
        target: async (s) => {
          const fwd = await s.forwarder()
          return { server: fwd, load: openai(fwd, OPENAI_BODY) }
        },
      }),
      autocannonRow({
        name: ROW.sustainedMiss,
        baseline: ROW.sustainedForwarder,
        connections: 'sustained',
        target: async (s) => {
          const g = await s.gateway()
          return { server: g, load: complete(g, 'no-cache') }
        },
        probe: missProbe(ROW.sustainedMiss, 'no-cache'),
      }),
    ]),
  ],
}

function streamsLane(steps: readonly number[]): Lane {
  return {
    name: 'slow streams',
    description: `mock streams ${SLOW_STREAM.chunks} events ${SLOW_STREAM.chunkDelayMs} ms apart (about ${(SLOW_STREAM.chunks * SLOW_STREAM.chunkDelayMs) / 1000} s a stream); proxies get ${STREAM_LANE_CONNECTIONS} sockets to it`,
    setup: { mock: SLOW_STREAM, upstreamConnections: STREAM_LANE_CONNECTIONS },
    steps: steps.map((open) =>
      openStreamsStep(open, [
        {
          name: ROW.streamsForwarder(open),
          target: async (s) => {
            const fwd = await s.forwarder()
            return { server: fwd, stream: openaiStream(fwd) }
          },
        },
        {
          name: ROW.streamsChat(open),
          target: async (s) => {
            const g = await s.gateway()
            return { server: g, stream: chatStream(g) }
          },
        },
      ]),
    ),
  }
}

/**
 * The gateway as an operator starts it, `tollgate serve --workers N`, for each N: one worker is
 * compared with the forwarder, N workers with one. Every row reads the store's commit counter.
 * The limited-plan rows give the key a limit far above what a run sends, so every request passes
 * the shared rate limit (the bench project's plan is otherwise unlimited and skips it).
 */
function scalingLane(workers: readonly number[]): Lane {
  const served =
    (n: number): GatewayOf =>
    (s) =>
      s.served(n)
  return {
    name: 'scaling',
    description: `mock answers at once; the gateway started as \`tollgate serve --workers N\` for N = ${workers.join(', ')}, each on the CPUs its row's note names`,
    setup: ZERO_MS_SETUP,
    steps: [
      roundRobinStep([
        autocannonRow({
          name: ROW.scalingJsonForwarder,
          target: async (s) => {
            const fwd = await s.forwarder()
            return { server: fwd, load: openai(fwd, OPENAI_BODY) }
          },
        }),
        ...workers.map((n) =>
          autocannonRow({
            name: ROW.scalingJson(n),
            baseline: n === 1 ? ROW.scalingJsonForwarder : ROW.scalingJson(1),
            countsStoreCommits: true,
            target: async (s) => {
              const g = await s.served(n)
              return { server: g, load: complete(g, 'no-cache') }
            },
            probe: missProbe(ROW.scalingJson(n), 'no-cache', served(n)),
          }),
        ),
        ...workers.map((n) =>
          autocannonRow({
            name: ROW.scalingJsonLimited(n),
            baseline: n === 1 ? ROW.scalingJson(1) : ROW.scalingJsonLimited(1),
            countsStoreCommits: true,
            target: async (s) => {
              const g = await s.served(n, true)
              return { server: g, load: complete(g, 'no-cache') }
            },
            probe: limitedProbe(
              ROW.scalingJsonLimited(n),
              missProbe(ROW.scalingJsonLimited(n), 'no-cache', (s) => s.served(n, true)),
            ),
          }),
        ),
      ]),
      roundRobinStep([
        streamRow({
          name: ROW.scalingStreamForwarder,
          target: async (s) => {
            const fwd = await s.forwarder()
            return { server: fwd, stream: openaiStream(fwd) }
          },
        }),
        ...workers.map((n) =>
          streamRow({
            name: ROW.scalingChat(n),
            baseline: n === 1 ? ROW.scalingStreamForwarder : ROW.scalingChat(1),
            countsStoreCommits: true,
            target: async (s) => {
              const g = await s.served(n)
              return { server: g, stream: chatStream(g) }
            },
            probe: chatProbe(ROW.scalingChat(n)),
          }),
        ),
      ]),
    ],
  }
}

const placementLane: Lane = {
  name: 'Governor placement',
  description: 'mock answers at once; gateways that scan every text on the event loop or in the worker pool',
  setup: { mock: { latencyMs: 0, chunks: 8, chunkDelayMs: 0 }, upstreamConnections: routerSchema.parse({}).connections },
  steps: placementSteps,
}

export function lanes(settings: Pick<Settings, 'streamSteps' | 'scalingWorkers'>): Lane[] {
  return [zeroMsLane, sustainedLane, streamsLane(settings.streamSteps), scalingLane(settings.scalingWorkers), placementLane]
}
