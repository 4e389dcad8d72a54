// The Governor placement rows, run only when asked for (`--only governor`): a support message full
// of personal data at two sizes, sent without governorMetadata to the plain gateway (no scan) and
// with it to a gateway that scans on the event loop and one that scans in the worker pool.
// Neither keeps verdicts, so every request is scanned. The probes check each row takes the path
// its name says; placement.ts compares the two places.
import { governorCompleteBody } from './governor-payload.ts'
import { completeHeaders } from './payload.ts'
import { send, type LoadRequest } from './probe.ts'
import { autocannonRow, roundRobinStep, type LoadMember, type ProbeResult, type Step } from './rows.ts'
import type { GatewayServer } from './servers.ts'
import { governorScans } from './server-metrics.ts'

export const GOVERNOR_SIZES = [
  { label: '4 KB', bytes: 4 * 1024 },
  { label: '16 KB', bytes: 16 * 1024 },
] as const

export type GovernorSize = (typeof GOVERNOR_SIZES)[number]['label']
export type GovernorVariant = 'no metadata' | 'scan inline' | 'scan in pool'

export const governorRowName = (size: GovernorSize, variant: GovernorVariant) => `governor ${size}, ${variant}`

interface Placement {
  readonly variant: 'scan inline' | 'scan in pool'
  /** Where the gateway must scan; the other place must stay idle. */
  readonly scansIn: 'inline' | 'pool'
}

const PLACEMENTS: readonly Placement[] = [
  { variant: 'scan inline', scansIn: 'inline' },
  { variant: 'scan in pool', scansIn: 'pool' },
]

function governedComplete(gateway: GatewayServer, bytes: number, withMetadata: boolean): LoadRequest {
  return {
    url: `${gateway.url}/api/ai/complete`,
    method: 'POST',
    headers: completeHeaders(gateway.key, { cacheControl: 'no-store' }),
    body: governorCompleteBody(bytes, { withMetadata }),
  }
}

const governorHeaderNames = (headers: Readonly<Record<string, string>>) => Object.keys(headers).filter((name) => name.startsWith('x-governor-'))

function unscannedRow(size: GovernorSize, bytes: number): LoadMember {
  const name = governorRowName(size, 'no metadata')
  return autocannonRow({
    name,
    optional: true,
    measuresLoopLag: true,
    target: async (s) => {
      const g = await s.gateway()
      return { server: g, load: governedComplete(g, bytes, false) }
    },
    async probe(load): Promise<ProbeResult> {
      const answer = await send(load)
      const governed = governorHeaderNames(answer.headers)
      const note = `probe: ${answer.status}, governor headers: ${governed.length === 0 ? 'none' : governed.join(', ')}`
      if (answer.status !== 200) return { isAsNamed: false, label: `${name} (probe answered ${answer.status})`, note }
      if (governed.length > 0) return { isAsNamed: false, label: `${name} (NOT ungoverned)`, note }
      return { isAsNamed: true, note }
    },
  })
}

function scannedRow(size: GovernorSize, bytes: number, placement: Placement): LoadMember {
  const name = governorRowName(size, placement.variant)
  const other = placement.scansIn === 'inline' ? 'pool' : 'inline'
  return autocannonRow({
    name,
    optional: true,
    measuresLoopLag: true,
    baseline: governorRowName(size, 'no metadata'),
    target: async (s) => {
      const g = await s.gateway(placement.variant)
      return { server: g, load: governedComplete(g, bytes, true) }
    },
    async probe(load): Promise<ProbeResult> {
      const origin = new URL(load.url).origin
      const before = await governorScans(origin)
      const answer = await send(load)
      const after = await governorScans(origin)
      const validated = answer.headers['x-governor-validated'] ?? 'none'
      const scanned = { inline: after.inline - before.inline, pool: after.pool - before.pool }
      const note = `probe: ${answer.status}, x-governor-validated ${validated}, scans inline +${scanned.inline}, in pool +${scanned.pool}`
      if (answer.status !== 200) return { isAsNamed: false, label: `${name} (probe answered ${answer.status})`, note }
      if (validated !== 'true') return { isAsNamed: false, label: `${name} (NOT validated: ${validated})`, note }
      if (scanned[placement.scansIn] === 0 || scanned[other] > 0) return { isAsNamed: false, label: `${name} (NOT only ${placement.scansIn})`, note }
      return { isAsNamed: true, note }
    },
    async audit(s) {
      const scans = await governorScans((await s.gateway(placement.variant)).url)
      return { 'scans inline': scans.inline, 'scans in pool': scans.pool }
    },
  })
}

export const placementSteps: readonly Step[] = [
  roundRobinStep(
    GOVERNOR_SIZES.flatMap(({ label, bytes }) => [unscannedRow(label, bytes), ...PLACEMENTS.map((placement) => scannedRow(label, bytes, placement))]),
  ),
]
