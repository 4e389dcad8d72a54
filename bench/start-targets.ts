// Starts every server the scenarios load, each in its own process: the mock upstream first, then
// the bare forwarder and the gateways in front of it (the default one and two that differ only in
// where the Governor scans), then the static floor replaying a recorded gateway answer.
import type { BareForwarderOptions } from './bare-forwarder.ts'
import type { Child, Fleet } from './processes.ts'
import { replayable, send } from './probe.ts'
import { gatewayComplete, type GatewayServer, type Server, type Targets } from './scenarios.ts'
import type { GatewayInfo, GatewaySpec } from './targets/gateway.ts'
import { routerSchema } from '../plugins/router/schema.ts'

interface Served {
  readonly url: string
}

const serverOf = (child: Child<Served>): Server => ({ url: child.info.url, cpuMicros: () => child.cpuMicros() })
const gatewayOf = (child: Child<GatewayInfo>): GatewayServer => ({ ...serverOf(child), projectId: child.info.projectId, key: child.info.key })

// Autocannon repeats one body, so a remembered verdict would turn every scan after the first into
// a lookup: neither placement keeps any.
const NO_MEMO = 0
// Far above the 16 KB rows' message, so all of it is scanned on the event loop.
const WHOLE_REQUEST_CHARS = 1 << 20
const SCAN_INLINE: GatewaySpec['governor'] = { inlineScanChars: WHOLE_REQUEST_CHARS, inlineBudgetChars: WHOLE_REQUEST_CHARS, memoEntries: NO_MEMO }
const SCAN_IN_POOL: GatewaySpec['governor'] = { inlineScanChars: 0, memoEntries: NO_MEMO }

export interface TargetOptions {
  /** Where each gateway child writes a CPU profile when it exits. */
  readonly profileDir?: string
}

export interface StartedTargets {
  readonly targets: Targets
  /** The gateways' temporary stores, which each gateway removes itself when it stops. */
  readonly gatewayDataDirs: readonly string[]
}

export async function startTargets(fleet: Fleet, options: TargetOptions = {}): Promise<StartedTargets> {
  const mock = await fleet.start<Served>('mock upstream', 'mock-upstream', {})
  // The gateway's own provider-pool settings, so the forwarder differs from it only in the gateway's work.
  const router = routerSchema.parse({})
  const forwarderSpec: BareForwarderOptions = {
    upstreamUrl: mock.info.url,
    connections: router.connections,
    connectTimeoutMs: router.timeouts.connectMs,
    headersTimeoutMs: router.timeouts.firstByteMs,
    bodyTimeoutMs: router.timeouts.idleMs,
  }
  const profileFlags = options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`]
  const startGateway = (name: string, governor?: GatewaySpec['governor']) => {
    const spec: GatewaySpec = governor === undefined ? { upstreamUrl: mock.info.url } : { upstreamUrl: mock.info.url, governor }
    return fleet.start<GatewayInfo>(name, 'gateway', spec, { nodeFlags: profileFlags })
  }
  const [forwarder, gateway, gatewayInline, gatewayPool] = await Promise.all([
    fleet.start<Served>('bare forwarder', 'bare-forwarder', forwarderSpec),
    startGateway('gateway'),
    startGateway('gateway (scan inline)', SCAN_INLINE),
    startGateway('gateway (scan in pool)', SCAN_IN_POOL),
  ])
  // The repeated request's second answer: with a cache, exactly the bytes of a cache hit.
  const repeated = gatewayComplete(gateway.info, { noStore: false })
  await send(repeated)
  const recorded = replayable(await send(repeated))
  const staticFloor = await fleet.start<Served>('static floor', 'static-floor', recorded)
  const targets: Targets = {
    mock: serverOf(mock),
    forwarder: serverOf(forwarder),
    gateway: gatewayOf(gateway),
    gatewayInline: gatewayOf(gatewayInline),
    gatewayPool: gatewayOf(gatewayPool),
    staticFloor: serverOf(staticFloor),
  }
  return { targets, gatewayDataDirs: [gateway, gatewayInline, gatewayPool].map((g) => g.info.dataDir) }
}
