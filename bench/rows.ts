// What a row is and how each kind is measured. A step measures one or more rows (the unloaded
// latency rows are measured together, interleaved); a lane is the steps that share one set of
// servers. Every row names its baseline, measured in the same run, and the report divides
// (throughput, streams) or subtracts (latency) against it.
import { runLoad, type LoadSettings } from './load.ts'
import { openCpuWindow } from './machine.ts'
import { runInterleaved } from './one-connection.ts'
import { send, type LoadRequest } from './probe.ts'
import { eventLoopLagP99Ms, resetEventLoopLag } from './server-metrics.ts'
import type { LaneServers, LaneSetup, Server } from './servers.ts'
import { runStreamLoad } from './stream-load.ts'
import type { StreamTarget } from './stream-client.ts'

export type RowKind = 'throughput' | 'latency' | 'streams'

export interface RowDef {
  readonly name: string
  readonly kind: RowKind
  /** The row this one is compared with. */
  readonly baseline?: string
  /** Runs only when --only names it (the Governor placement rows). */
  readonly optional?: boolean
}

export interface Figures {
  /** Answers (or finished streams) per second. */
  readonly rps?: number
  /** Time to the last byte. */
  readonly p50Ms?: number
  readonly p99Ms?: number
  /** Time to the first byte of the body. */
  readonly ttfbP50Ms?: number
  readonly ttfbP99Ms?: number
  readonly ok: number
  /** Non-2xx, errors, timeouts, cut streams. */
  readonly failed: number
  /** Streams that waited longer than the stall limit for a byte. */
  readonly stalls?: number
  /** CPU of the server under load (all its threads) per answer. */
  readonly cpuMicrosPerAnswer?: number
  /** CPU used by other processes on the machine during the row, % of one core. */
  readonly otherCpuPct?: number
  /** Upstream requests per answer (1 for a miss, 0 for a cache hit). */
  readonly upstreamPerAnswer?: number
  /** The server's resident memory before the step, at its peak, a quarter into the window and at its end. */
  readonly rssBeforeMb?: number
  readonly rssPeakMb?: number
  readonly rssQuarterMb?: number
  readonly rssEndMb?: number
  /** The server's event-loop delay p99 over the window (from its /metrics). */
  readonly loopLagP99Ms?: number
}

export interface RowResult extends RowDef {
  /** The name, or why the row is not what its name says (then it is not judged). */
  readonly label: string
  readonly isAsNamed: boolean
  readonly figures: Figures
  readonly notes: readonly string[]
}

export interface Settings {
  readonly connections: number
  /** Connections of the 20 ms mock rows. */
  readonly sustainedConnections: number
  readonly warmupSeconds: number
  readonly durationSeconds: number
  /** Open streams per step of the concurrent-streams rows. */
  readonly streamSteps: readonly number[]
  /** A wait for the next byte of a stream longer than this is a stall. */
  readonly stallMs: number
}

export interface StepContext {
  readonly settings: Settings
  progress(text: string): void
  /** Every process of the benchmark running now. */
  pids(): number[]
}

export interface Step {
  readonly rows: readonly RowDef[]
  run(servers: LaneServers, ctx: StepContext): Promise<RowResult[]>
}

export interface Lane {
  readonly name: string
  /** One line for the report: what the mock does in this lane. */
  readonly description: string
  readonly setup: LaneSetup
  readonly steps: readonly Step[]
}

export interface ProbeResult {
  readonly isAsNamed: boolean
  /** The row's label when it is not as named. */
  readonly label?: string
  readonly note: string
}

const MB = 1024 * 1024
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A probe that only checks the status. */
export function expectStatus200(name: string) {
  return async (load: LoadRequest): Promise<ProbeResult> => {
    const { status } = await send(load)
    return status === 200 ? { isAsNamed: true, note: 'probe: 200' } : { isAsNamed: false, label: `${name} (probe answered ${status})`, note: `probe: ${status}` }
  }
}

async function upstreamRequests(servers: LaneServers): Promise<number> {
  const answer = await send({ url: `${(await servers.mock()).url}/stats`, method: 'GET', headers: {} })
  return (JSON.parse(answer.body) as { requests: number }).requests
}

function labelled(def: RowDef, probe: ProbeResult): Pick<RowResult, 'label' | 'isAsNamed'> {
  return { label: probe.isAsNamed ? def.name : probe.label ?? `${def.name} (not as named)`, isAsNamed: probe.isAsNamed }
}

function moved(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): string[] {
  return Object.entries(after).map(([name, value]) => `${name} during the window: +${value - (before[name] ?? 0)}`)
}

export interface AutocannonRow extends Omit<RowDef, 'kind'> {
  /** The 20 ms mock rows use more connections, so the mock's pace is not the ceiling. */
  readonly connections?: 'load' | 'sustained'
  target(servers: LaneServers): Promise<{ readonly server: Server; readonly load: LoadRequest }>
  probe?(load: LoadRequest, servers: LaneServers): Promise<ProbeResult>
  /** Counters read before and after the window; the notes show how they moved. */
  audit?(servers: LaneServers): Promise<Readonly<Record<string, number>>>
  readonly measuresLoopLag?: boolean
}

/** A closed-loop autocannon row: req/s, exact p50/p99, server CPU per answer. */
export function autocannonStep(row: AutocannonRow): Step {
  const def: RowDef = { name: row.name, kind: 'throughput', ...(row.baseline === undefined ? {} : { baseline: row.baseline }), ...(row.optional === undefined ? {} : { optional: row.optional }) }
  return {
    rows: [def],
    async run(servers, ctx) {
      const { server, load } = await row.target(servers)
      const probe = await (row.probe ?? ((l: LoadRequest) => expectStatus200(row.name)(l)))(load, servers)
      const s = ctx.settings
      const settings: LoadSettings = { connections: row.connections === 'sustained' ? s.sustainedConnections : s.connections, durationSeconds: s.durationSeconds }
      ctx.progress(`${row.name}: ${probe.note}; ${settings.connections} connections, ${s.warmupSeconds} s warm-up, ${s.durationSeconds} s measured`)
      await runLoad(load, { connections: settings.connections, durationSeconds: s.warmupSeconds })
      const audited = (await row.audit?.(servers)) ?? {}
      const upBefore = await upstreamRequests(servers)
      if (row.measuresLoopLag === true) await resetEventLoopLag(server.url)
      const cpuBefore = await server.cpuMicros()
      const window = openCpuWindow(ctx.pids())
      const m = await runLoad(load, settings)
      const otherCpuPct = window.otherCpuPct()
      const cpuAfter = await server.cpuMicros()
      const loopLagP99Ms = row.measuresLoopLag === true ? await eventLoopLagP99Ms(server.url) : undefined
      const upAfter = await upstreamRequests(servers)
      const auditedAfter = (await row.audit?.(servers)) ?? {}
      const answered = Math.max(1, m.ok + m.failed)
      const isMock = server.url === (await servers.mock()).url
      const upstreamPerAnswer = isMock ? undefined : (upAfter - upBefore) / answered
      return [{
        ...def, ...labelled(def, probe),
        figures: {
          rps: m.requestsPerSecond, p50Ms: m.p50Ms, p99Ms: m.p99Ms, ok: m.ok, failed: m.failed,
          cpuMicrosPerAnswer: (cpuAfter - cpuBefore) / answered,
          ...(otherCpuPct === undefined ? {} : { otherCpuPct }),
          ...(upstreamPerAnswer === undefined ? {} : { upstreamPerAnswer }),
          ...(loopLagP99Ms === undefined ? {} : { loopLagP99Ms }),
        },
        notes: [probe.note, ...(m.timeouts > 0 ? [`${m.timeouts} timeouts`] : []), ...moved(audited, auditedAfter)],
      }]
    },
  }
}

export interface StreamRow extends Omit<RowDef, 'kind'> {
  target(servers: LaneServers): Promise<{ readonly server: Server; readonly stream: StreamTarget }>
  probe?(load: LoadRequest, servers: LaneServers): Promise<ProbeResult>
}

/** A closed-loop streaming row with the undici client: streams/s, TTFB and total p50/p99. */
export function streamStep(row: StreamRow): Step {
  const def: RowDef = { name: row.name, kind: 'throughput', ...(row.baseline === undefined ? {} : { baseline: row.baseline }) }
  return {
    rows: [def],
    async run(servers, ctx) {
      const { server, stream } = await row.target(servers)
      const probe = await (row.probe ?? ((l: LoadRequest) => expectStatus200(row.name)(l)))(stream.load, servers)
      const s = ctx.settings
      ctx.progress(`${row.name}: ${probe.note}; ${s.connections} connections, ${s.warmupSeconds} s warm-up, ${s.durationSeconds} s measured`)
      const upBefore = await upstreamRequests(servers)
      const cpuBefore = await server.cpuMicros()
      const window = openCpuWindow(ctx.pids())
      const m = await runStreamLoad(stream, { connections: s.connections, warmupSeconds: s.warmupSeconds, durationSeconds: s.durationSeconds, stallMs: s.stallMs, drainMs: 5000 })
      const otherCpuPct = window.otherCpuPct()
      const cpuAfter = await server.cpuMicros()
      const upAfter = await upstreamRequests(servers)
      // The CPU and upstream figures cover the warm-up too, and so does answeredTotal.
      const sent = Math.max(1, m.answeredTotal)
      return [{
        ...def, ...labelled(def, probe),
        figures: {
          rps: m.streamsPerSecond, p50Ms: m.p50Ms, p99Ms: m.p99Ms, ttfbP50Ms: m.ttfbP50Ms, ttfbP99Ms: m.ttfbP99Ms, ok: m.ok, failed: m.failed, stalls: m.stalls,
          cpuMicrosPerAnswer: (cpuAfter - cpuBefore) / sent,
          ...(otherCpuPct === undefined ? {} : { otherCpuPct }),
          ...(server.url === (await servers.mock()).url ? {} : { upstreamPerAnswer: (upAfter - upBefore) / sent }),
        },
        notes: [probe.note, ...m.problems],
      }]
    },
  }
}

export interface InterleavedTarget {
  readonly name: string
  target(servers: LaneServers): Promise<StreamTarget>
}

/** Unloaded latency rows, one request at a time, interleaved; every row but the first is compared with the first. */
export function interleavedStep(targets: readonly InterleavedTarget[]): Step {
  const base = targets[0]!.name
  const defs: RowDef[] = targets.map((t, i) => ({ name: t.name, kind: 'latency', ...(i === 0 ? {} : { baseline: base }) }))
  return {
    rows: defs,
    async run(servers, ctx) {
      const streams = await Promise.all(targets.map((t) => t.target(servers)))
      const probes = await Promise.all(targets.map((t, i) => expectStatus200(t.name)(streams[i]!.load)))
      const s = ctx.settings
      ctx.progress(`${targets.map((t) => t.name).join(', ')}: one connection each, interleaved; ${s.warmupSeconds} s warm-up, ${s.durationSeconds} s measured`)
      const window = openCpuWindow(ctx.pids())
      const measured = await runInterleaved(streams, { warmupSeconds: s.warmupSeconds, durationSeconds: s.durationSeconds })
      const otherCpuPct = window.otherCpuPct()
      return measured.map((m, i) => ({
        ...defs[i]!, ...labelled(defs[i]!, probes[i]!),
        figures: {
          p50Ms: m.p50Ms, p99Ms: m.p99Ms, ttfbP50Ms: m.ttfbP50Ms, ttfbP99Ms: m.ttfbP99Ms, ok: m.ok, failed: m.failed,
          ...(otherCpuPct === undefined ? {} : { otherCpuPct }),
        },
        notes: [probes[i]!.note, `${m.ok} requests`, ...m.problems],
      }))
    },
  }
}

export interface OpenStreamsTarget {
  readonly name: string
  target(servers: LaneServers): Promise<{ readonly server: Server; readonly stream: StreamTarget }>
}

const RSS_SAMPLE_MS = 250

/**
 * `open` streams kept open at once against each target in turn (a finished stream is replaced at
 * once), with the server's resident memory sampled through the step. Every target but the first
 * is compared with the first.
 */
export function openStreamsStep(open: number, targets: readonly OpenStreamsTarget[]): Step {
  const base = targets[0]!.name
  const defs: RowDef[] = targets.map((t, i) => ({ name: t.name, kind: 'streams', ...(i === 0 ? {} : { baseline: base }) }))
  return {
    rows: defs,
    async run(servers, ctx) {
      const results: RowResult[] = []
      for (const [i, t] of targets.entries()) {
        const def = defs[i]!
        const { server, stream } = await t.target(servers)
        const probe = await expectStatus200(t.name)(stream.load)
        const s = ctx.settings
        ctx.progress(`${t.name}: ${probe.note}; ${open} streams open, ${s.warmupSeconds} s warm-up, ${s.durationSeconds} s measured`)
        const rssBefore = server.rssBytes()
        const rss: Array<{ at: number; bytes: number }> = []
        const startedAt = Date.now()
        const sampler = setInterval(() => {
          const bytes = server.rssBytes()
          if (bytes !== undefined) rss.push({ at: Date.now() - startedAt, bytes })
        }, RSS_SAMPLE_MS)
        const cpuBefore = await server.cpuMicros()
        const window = openCpuWindow(ctx.pids())
        let m
        try {
          m = await runStreamLoad(stream, { connections: open, warmupSeconds: s.warmupSeconds, durationSeconds: s.durationSeconds, stallMs: s.stallMs, drainMs: Math.max(5000, 2 * s.stallMs) })
        } finally {
          clearInterval(sampler)
        }
        const otherCpuPct = window.otherCpuPct()
        const cpuAfter = await server.cpuMicros()
        const windowStartMs = s.warmupSeconds * 1000
        const windowEndMs = windowStartMs + s.durationSeconds * 1000
        const inWindow = rss.filter((r) => r.at >= windowStartMs && r.at <= windowEndMs)
        const quarter = inWindow.find((r) => r.at >= windowStartMs + (windowEndMs - windowStartMs) / 4)
        const sent = Math.max(1, m.answeredTotal)
        results.push({
          ...def, ...labelled(def, probe),
          figures: {
            rps: m.streamsPerSecond, p50Ms: m.p50Ms, p99Ms: m.p99Ms, ttfbP50Ms: m.ttfbP50Ms, ttfbP99Ms: m.ttfbP99Ms, ok: m.ok, failed: m.failed, stalls: m.stalls,
            cpuMicrosPerAnswer: (cpuAfter - cpuBefore) / sent,
            ...(otherCpuPct === undefined ? {} : { otherCpuPct }),
            ...(rssBefore === undefined ? {} : { rssBeforeMb: rssBefore / MB }),
            ...(rss.length === 0 ? {} : { rssPeakMb: Math.max(...rss.map((r) => r.bytes)) / MB }),
            ...(quarter === undefined ? {} : { rssQuarterMb: quarter.bytes / MB }),
            ...(inWindow.length === 0 ? {} : { rssEndMb: inWindow[inWindow.length - 1]!.bytes / MB }),
          },
          notes: [probe.note, ...m.problems],
        })
        // Let the sockets of the last step close before the next target is loaded.
        await sleep(500)
      }
      return results
    },
  }
}
