// The servers of one lane, each started in its own (pinned) process the first time a row asks for
// it: the mock upstream with the lane's pace, the lean forwarder and the gateways in front of it
// (one of them as `tollgate serve --workers N`), and the static floor replaying a recorded cache hit. A lane's forwarder and gateways use the
// same number of sockets to the mock, so they differ only in the work they do.
import type { Child, Fleet } from './processes.ts'
import { replayable, send } from './probe.ts'
import { completeHeaders, COMPLETE_BODY } from './payload.ts'
import type { GatewayInfo, GatewaySpec } from './targets/gateway.ts'
import type { LeanForwarderSpec } from './targets/lean-forwarder.ts'
import type { MockSpec } from './targets/mock-upstream.ts'
import type { SpecFloorSpec } from './targets/spec-floor.ts'
import type { ServedGatewaySpec } from './targets/served-gateway.ts'
import { clusterPlacement } from './pinning.ts'
import type { SharedStoresInfo } from './targets/shared-stores.ts'
import { rateLimitSchema } from '../plugins/rate-limit/schema.ts'

/** A running child process serving HTTP. */
export interface Server {
  readonly name: string
  readonly url: string
  readonly pid: number
  /** CPU time (all threads) the process has used so far. */
  cpuMicros(): Promise<number>
  rssBytes(): number | undefined
  /** Where it runs, when not on the servers' CPU (a cluster's CPUs), for the row's notes. */
  readonly placement?: string
}

export interface GatewayServer extends Server {
  readonly projectId: string
  /** The seeded project's `sk_prod_` key. */
  readonly key: string
}

/** Where a gateway keeps its records: its own LMDB store, or the lane's PostgreSQL and Redis. */
export type GatewayStores = 'lmdb' | 'shared'

/** The PostgreSQL and Redis of a lane; CPU time is theirs (every process), not the child's. */
export interface SharedStoresServer {
  readonly name: string
  readonly pid: number
  readonly info: SharedStoresInfo
  cpuMicros(): Promise<number>
}

/**
 * plain: the default configuration. governed: the enterprise plan with a real rate limit, and a
 * Governor that remembers no verdicts, so every request is scanned (a load generator repeats one
 * body; real traffic rarely does). scan inline / scan in pool: the Governor placement rows.
 * traced: plain, with OpenTelemetry traces exported to the lane's no-op OTLP sink. core only: the
 * proxy core and the router alone (no auth, cache, metering, limits or Governor), the least the
 * gateway can do for an answer: what its plugins cost is the gap between it and plain.
 */
export type GatewayKind = 'plain' | 'governed' | 'scan inline' | 'scan in pool' | 'traced' | 'core only'

export interface LaneSetup {
  readonly mock: MockSpec
  /** Sockets per upstream origin, for the gateways' provider pool and the forwarder's alike. */
  readonly upstreamConnections: number
}

// Far above what a run can send (100k requests a second sustained), but a limit: the bucket and
// the daily quota are checked and written on every request, as for any limited plan.
export const ENTERPRISE_LIMIT = { perMinute: 6_000_000, burst: 100_000, perDay: 1_000_000_000 }
const LIMITED_PLANS = { plans: { ...rateLimitSchema.parse({}).plans, enterprise: ENTERPRISE_LIMIT } }
const NO_MEMO = 0
const SHARED_STORES = 'PostgreSQL + Redis'
// The workers start one after the other, each opening the store and setting up every plugin.
const SERVED_READY_TIMEOUT_MS = 150_000
// Far above the 16 KB placement rows' message, so all of it is scanned on the event loop.
const WHOLE_REQUEST_CHARS = 1 << 20

function gatewaySpec(kind: GatewayKind, upstreamUrl: string, upstreamConnections: number): GatewaySpec {
  const base = { upstreamUrl, upstreamConnections }
  switch (kind) {
    case 'plain':
    case 'traced':
      return base
    case 'governed':
      return {
        ...base,
        rateLimit: LIMITED_PLANS,
        governor: { memoEntries: NO_MEMO },
      }
    case 'scan inline':
      return { ...base, governor: { inlineScanChars: WHOLE_REQUEST_CHARS, inlineBudgetChars: WHOLE_REQUEST_CHARS, memoEntries: NO_MEMO } }
    case 'scan in pool':
      return { ...base, governor: { inlineScanChars: 0, memoEntries: NO_MEMO } }
    case 'core only':
      return { ...base, plugins: ['router'] }
  }
}

const serverOf = (child: Child<{ readonly url: string }>): Server => ({
  name: child.name,
  url: child.info.url,
  pid: child.pid,
  cpuMicros: () => child.cpuMicros(),
  rssBytes: () => child.rssBytes(),
})

export class LaneServers {
  readonly #fleet: Fleet
  readonly #lane: string
  readonly #setup: LaneSetup
  readonly #gatewayNodeFlags: readonly string[]
  readonly #started = new Map<string, Promise<Server | SharedStoresServer>>()
  readonly #dataDirs: string[] = []

  /** `gatewayNodeFlags` go to every gateway's Node (the profiler's `--cpu-prof`). */
  constructor(fleet: Fleet, lane: string, setup: LaneSetup, gatewayNodeFlags: readonly string[] = []) {
    this.#fleet = fleet
    this.#lane = lane
    this.#setup = setup
    this.#gatewayNodeFlags = gatewayNodeFlags
  }

  #once<S extends Server | SharedStoresServer>(what: string, boot: (name: string) => Promise<S>): Promise<S> {
    const name = `${this.#lane}: ${what}`
    let started = this.#started.get(name)
    if (started === undefined) {
      started = boot(name)
      this.#started.set(name, started)
    }
    return started as Promise<S>
  }

  mock(): Promise<Server> {
    return this.#once('mock upstream', async (name) => serverOf(await this.#fleet.start(name, 'mock-upstream', this.#setup.mock)))
  }

  forwarder(): Promise<Server> {
    return this.#once('lean forwarder', async (name) => {
      const spec: LeanForwarderSpec = { upstreamUrl: (await this.mock()).url, connections: this.#setup.upstreamConnections }
      return serverOf(await this.#fleet.start(name, 'lean-forwarder', spec))
    })
  }

  /**
   * A gateway of `kind` on `stores`. One on the shared stores counts their CPU time as its own,
   * since the work LMDB does inside a gateway's process is done there.
   */
  gateway(kind: GatewayKind = 'plain', stores: GatewayStores = 'lmdb'): Promise<GatewayServer> {
    const shared = stores === 'shared'
    return this.#once(`gateway (${kind}${shared ? ', PostgreSQL + Redis' : ''})`, async (name) => {
      const base = gatewaySpec(kind, (await this.mock()).url, this.#setup.upstreamConnections)
      const traced = kind === 'traced' ? { ...base, otlpEndpoint: (await this.otlpSink()).url } : base
      const sharedStores = shared ? await this.sharedStores() : undefined
      const spec: GatewaySpec =
        sharedStores === undefined ? traced : { ...traced, sharedStores: { databaseUrl: sharedStores.info.databaseUrl, redisUrl: sharedStores.info.redisUrl } }
      const child = await this.#fleet.start<GatewayInfo>(name, 'gateway', spec, { nodeFlags: this.#gatewayNodeFlags })
      this.#dataDirs.push(child.info.dataDir)
      const server = { ...serverOf(child), projectId: child.info.projectId, key: child.info.key }
      if (sharedStores === undefined) return server
      return { ...server, cpuMicros: async () => (await child.cpuMicros()) + (await sharedStores.cpuMicros()) }
    })
  }

  /**
   * The gateway as an operator starts it, `tollgate serve --workers N` (see
   * targets/served-gateway.ts), on the CPUs clusterPlacement gives N workers; `limited`: its
   * project's plan with ENTERPRISE_LIMIT, so every request passes the shared rate limit.
   */
  served(workers: number, limited = false): Promise<GatewayServer> {
    return this.#once(`tollgate serve --workers ${workers}${limited ? ', limited plan' : ''}`, async (name) => {
      const placement = clusterPlacement(this.#fleet.serverCpu, workers)
      const spec: ServedGatewaySpec = {
        upstreamUrl: (await this.mock()).url,
        upstreamConnections: this.#setup.upstreamConnections,
        workers,
        ...(limited ? { rateLimit: LIMITED_PLANS } : {}),
      }
      const child = await this.#fleet.start<GatewayInfo>(name, 'served-gateway', spec, {
        readyTimeoutMs: SERVED_READY_TIMEOUT_MS,
        ...(placement.cpus === undefined ? {} : { cpus: placement.cpus }),
      })
      this.#dataDirs.push(child.info.dataDir)
      return { ...serverOf(child), projectId: child.info.projectId, key: child.info.key, placement: placement.description }
    })
  }

  /** PostgreSQL and Redis for the gateways on shared stores (see targets/shared-stores.ts). */
  sharedStores(): Promise<SharedStoresServer> {
    return this.#once(SHARED_STORES, async (name) => {
      const child = await this.#fleet.start<SharedStoresInfo>(name, 'shared-stores', {})
      this.#dataDirs.push(child.info.dataDir)
      return { name: child.name, pid: child.pid, info: child.info, cpuMicros: () => child.cpuMicros() }
    })
  }

  /** A no-op OpenTelemetry collector for the traced gateway. */
  otlpSink(): Promise<Server> {
    return this.#once('otlp sink', async (name) => serverOf(await this.#fleet.start(name, 'otlp-sink', {})))
  }

  /** What any gateway of the spec must do per answer, and no more (see targets/spec-floor.ts). */
  specFloor(): Promise<Server> {
    return this.#once('spec floor', async (name) => {
      const spec: SpecFloorSpec = { upstreamUrl: (await this.mock()).url, connections: this.#setup.upstreamConnections }
      return serverOf(await this.#fleet.start(name, 'spec-floor', spec))
    })
  }

  /** Answers every request with the bytes of the plain gateway's cache hit for the benchmark's request. */
  staticFloor(): Promise<Server> {
    return this.#once('static floor', async (name) => {
      const gateway = await this.gateway('plain')
      const repeated = { url: `${gateway.url}/api/ai/complete`, method: 'POST' as const, headers: completeHeaders(gateway.key, {}), body: COMPLETE_BODY }
      await send(repeated)
      const recorded = replayable(await send(repeated))
      return serverOf(await this.#fleet.start(name, 'static-floor', recorded))
    })
  }

  /** The temporary directories of the gateways' stores and of the shared stores (each server removes its own when it stops). */
  get dataDirs(): readonly string[] {
    return this.#dataDirs
  }

  /** Stops every server of this lane; the shared stores last, so no gateway sees them go away as it stops. */
  async stop(): Promise<void> {
    const stores = `${this.#lane}: ${SHARED_STORES}`
    const names = [...this.#started.keys()]
    this.#started.clear()
    await Promise.all(names.filter((name) => name !== stores).map((name) => this.#fleet.stopOne(name)))
    if (names.includes(stores)) await this.#fleet.stopOne(stores)
  }
}
