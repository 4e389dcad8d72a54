// Starts every server the scenarios load, each in its own process: the mock upstream first, then
// the bare forwarder and the gateway in front of it, then the static floor replaying a recorded
// gateway answer.
import type { BareForwarderOptions } from './bare-forwarder.ts'
import type { Child, Fleet } from './processes.ts'
import { replayable, send } from './probe.ts'
import { gatewayComplete, type Server, type Targets } from './scenarios.ts'
import type { GatewayInfo, GatewaySpec } from './targets/gateway.ts'
import { routerSchema } from '../plugins/router/schema.ts'

interface Served {
  readonly url: string
}

const serverOf = (child: Child<Served>): Server => ({ url: child.info.url, cpuMicros: () => child.cpuMicros() })

export interface TargetOptions {
  /** Where the gateway child writes a CPU profile when it exits. */
  readonly profileDir?: string
}

export interface StartedTargets {
  readonly targets: Targets
  /** The gateway's temporary store, which the gateway removes itself when it stops. */
  readonly gatewayDataDir: string
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
  const gatewaySpec: GatewaySpec = { upstreamUrl: mock.info.url }
  const profileFlags = options.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`]
  const [forwarder, gateway] = await Promise.all([
    fleet.start<Served>('bare forwarder', 'bare-forwarder', forwarderSpec),
    fleet.start<GatewayInfo>('gateway', 'gateway', gatewaySpec, { nodeFlags: profileFlags }),
  ])
  // The repeated request's second answer: with a cache, exactly the bytes of a cache hit.
  const repeated = gatewayComplete(gateway.info, { noStore: false })
  await send(repeated)
  const recorded = replayable(await send(repeated))
  const staticFloor = await fleet.start<Served>('static floor', 'static-floor', recorded)
  const targets: Targets = {
    mock: serverOf(mock),
    forwarder: serverOf(forwarder),
    gateway: { ...serverOf(gateway), projectId: gateway.info.projectId, key: gateway.info.key },
    staticFloor: serverOf(staticFloor),
  }
  return { targets, gatewayDataDir: gateway.info.dataDir }
}
