// What a row is and how each kind is measured. A step measures one or more rows together: the
// throughput rows take turns in slices, the unloaded latency rows are interleaved request by
// request, the open-stream rows run one after the other. A lane is the steps that share one set
// of servers. Every row names its baseline, measured in the same step, and the report divides
// (throughput, streams) or subtracts (latency) against it.
import { runLoad } from './load.ts'
import { openCpuWindow } from './machine.ts'
import { runInterleaved } from './one-connection.ts'
import { send, type LoadRequest } from './probe.ts'
import { eventLoopLagP99Ms, lmdbCommits, resetEventLoopLag } from './server-metrics.ts'
import type { LaneServers, LaneSetup, Server } from './servers.ts'
import { runStreamLoad } from './stream-load.ts'
import type { StreamTarget } from './stream-client.ts'
import { ascending, median, percentile } from './stats.ts'

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
  /** Time to the first chunk with the answer's text (streams held open). */
  readonly ttftP99Ms?: number
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
  /** LMDB write transactions the server committed per answer (its tollgate_store_commits_total). */
  readonly storeCommitsPerAnswer?: number
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
  /** How the row's audit counters moved during the window (metered misses, scans…). */
  readonly audited?: Readonly<Record<string, number>>
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
  /** The worker counts of the scaling rows (`tollgate serve --workers N`). */
  readonly scalingWorkers: readonly number[]
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
  /** Measures the step's rows; a step that can, measures only the `chosen` ones. */
  run(servers: LaneServers, ctx: StepContext, chosen: ReadonlySet<string>): Promise<RowResult[]>
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
    return status === 200
      ? { isAsNamed: true, note: 'probe: 200' }
      : { isAsNamed: false, label: `${name} (probe answered ${status})`, note: `probe: ${status}` }
  }
}

async function upstreamRequests(servers: LaneServers): Promise<number> {
  const answer = await send({ url: `${(await servers.mock()).url}/stats`, method: 'GET', headers: {} })
  return (JSON.parse(answer.body) as { requests: number }).requests
}

function labelled(def: RowDef, probe: ProbeResult): Pick<RowResult, 'label' | 'isAsNamed'> {
  return { label: probe.isAsNamed ? def.name : (probe.label ?? `${def.name} (not as named)`), isAsNamed: probe.isAsNamed }
}

function moved(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, value]) => [name, value - (before[name] ?? 0)]))
}

export interface AutocannonRow extends Omit<RowDef, 'kind'> {
  /** The 20 ms mock rows use more connections, so the mock's pace is not the ceiling. */
  readonly connections?: 'load' | 'sustained'
  target(servers: LaneServers): Promise<{ readonly server: Server; readonly load: LoadRequest }>
  probe?(load: LoadRequest, servers: LaneServers): Promise<ProbeResult>
  /** Counters read before and after every slice; the report shows how far they moved. */
  audit?(servers: LaneServers): Promise<Readonly<Record<string, number>>>
  readonly measuresLoopLag?: boolean
  /** Reads the server's LMDB commit counter around every slice. */
  readonly countsStoreCommits?: boolean
  /** Why the row cannot run on this machine (a server not installed), or undefined when it can. */
  unavailable?(): string | undefined
}

export interface StreamRow extends Omit<RowDef, 'kind'> {
  target(servers: LaneServers): Promise<{ readonly server: Server; readonly stream: StreamTarget }>
  probe?(load: LoadRequest, servers: LaneServers): Promise<ProbeResult>
  /** Reads the server's LMDB commit counter around every slice. */
  readonly countsStoreCommits?: boolean
}

/** What one slice of closed-loop load on one row gave. */
interface Slice {
  readonly seconds: number
  readonly ok: number
  readonly failed: number
  readonly timeouts: number
  readonly stalls: number
  /** Every answer that arrived during the slice's load, warm-up and drain included. */
  readonly answered: number
  readonly latencies: readonly number[]
  readonly ttfbs: readonly number[]
  readonly problems: readonly string[]
}

interface PreparedMember {
  readonly server: Server
  readonly probe: ProbeResult
  readonly connections: number
  warm(seconds: number): Promise<void>
  slice(seconds: number): Promise<Slice>
}

/** One row of a round-robin step. */
export interface LoadMember {
  readonly def: RowDef
  readonly isStream: boolean
  readonly measuresLoopLag: boolean
  readonly countsStoreCommits: boolean
  prepare(servers: LaneServers, settings: Settings): Promise<PreparedMember>
  audit?(servers: LaneServers): Promise<Readonly<Record<string, number>>>
  unavailable?(): string | undefined
}

/** A row that could not run here: reported under its name with the reason, no figures, not judged. */
export function skippedRow(def: RowDef, reason: string): RowResult {
  return { ...def, label: `${def.name} (${reason})`, isAsNamed: false, figures: { ok: 0, failed: 0 }, notes: [reason] }
}

const defOf = (row: Omit<RowDef, 'kind'>): RowDef => ({
  name: row.name,
  kind: 'throughput',
  ...(row.baseline === undefined ? {} : { baseline: row.baseline }),
  ...(row.optional === undefined ? {} : { optional: row.optional }),
})

/** A closed-loop autocannon row: req/s, exact p50/p99 to the last byte. */
export function autocannonRow(row: AutocannonRow): LoadMember {
  return {
    def: defOf(row),
    isStream: false,
    measuresLoopLag: row.measuresLoopLag === true,
    countsStoreCommits: row.countsStoreCommits === true,
    ...(row.audit === undefined ? {} : { audit: row.audit }),
    ...(row.unavailable === undefined ? {} : { unavailable: row.unavailable }),
    async prepare(servers, settings) {
      const { server, load } = await row.target(servers)
      const probe = await (row.probe ?? ((l: LoadRequest) => expectStatus200(row.name)(l)))(load, servers)
      const connections = row.connections === 'sustained' ? settings.sustainedConnections : settings.connections
      return {
        server,
        probe,
        connections,
        async warm(seconds) {
          await runLoad(load, { connections, durationSeconds: seconds })
        },
        async slice(seconds) {
          const m = await runLoad(load, { connections, durationSeconds: seconds })
          return {
            seconds,
            ok: m.ok,
            failed: m.failed,
            timeouts: m.timeouts,
            stalls: 0,
            answered: m.ok + m.failed,
            latencies: m.latencies,
            ttfbs: [],
            problems: [],
          }
        },
      }
    },
  }
}

/** A closed-loop streaming row with the undici client: streams/s, time to first and to last byte. */
export function streamRow(row: StreamRow): LoadMember {
  return {
    def: defOf(row),
    isStream: true,
    measuresLoopLag: false,
    countsStoreCommits: row.countsStoreCommits === true,
    async prepare(servers, settings) {
      const { server, stream } = await row.target(servers)
      const probe = await (row.probe ?? ((l: LoadRequest) => expectStatus200(row.name)(l)))(stream.load, servers)
      const run = (warmupSeconds: number, durationSeconds: number) =>
        runStreamLoad(stream, { connections: settings.connections, warmupSeconds, durationSeconds, stallMs: settings.stallMs, drainMs: 5000 })
      return {
        server,
        probe,
        connections: settings.connections,
        async warm(seconds) {
          await run(0, seconds)
        },
        async slice(seconds) {
          const m = await run(0, seconds)
          return {
            seconds,
            ok: m.ok,
            failed: m.failed,
            timeouts: 0,
            stalls: m.stalls,
            answered: m.answeredTotal,
            latencies: m.totals,
            ttfbs: m.ttfbs,
            problems: m.problems,
          }
        },
      }
    },
  }
}

/** Slices of this length at most; a row's measured time is split into as many. */
const SLICE_SECONDS = 2

/**
 * Rows measured in turns: each row gets its measured time in slices of SLICE_SECONDS, the rows
 * taking turns, so a neighbour's burst of work on a shared machine falls on all of them alike
 * instead of on whichever row was running. Every row is warmed up first.
 */
export function roundRobinStep(members: readonly LoadMember[]): Step {
  return {
    rows: members.map((m) => m.def),
    async run(servers, ctx, chosen) {
      const s = ctx.settings
      const skipped: RowResult[] = []
      const running = members.filter((m) => {
        const reason = chosen.has(m.def.name) ? m.unavailable?.() : undefined
        if (reason !== undefined) skipped.push(skippedRow(m.def, reason))
        return chosen.has(m.def.name) && reason === undefined
      })
      const prepared: PreparedMember[] = []
      for (const member of running) prepared.push(await member.prepare(servers, s))
      const slices = Math.max(1, Math.round(s.durationSeconds / SLICE_SECONDS))
      const sliceSeconds = s.durationSeconds / slices
      ctx.progress(
        `${running.map((m, i) => `${m.def.name} (${prepared[i]!.probe.note})`).join(', ')}: ${s.warmupSeconds} s warm-up each, then ${slices} turns of ${sliceSeconds} s each`,
      )
      for (const p of prepared) await p.warm(s.warmupSeconds)
      const taken = running.map(() => ({
        slices: [] as Slice[],
        cpuMicros: 0,
        upstream: 0,
        commits: 0,
        otherCpu: [] as number[],
        lag: [] as number[],
        audited: {} as Record<string, number>,
      }))
      for (let turn = 0; turn < slices; turn++) {
        for (let k = 0; k < running.length; k++) {
          const i = (turn + k) % running.length
          const member = running[i]!
          const p = prepared[i]!
          const into = taken[i]!
          const auditBefore = (await member.audit?.(servers)) ?? {}
          const upBefore = await upstreamRequests(servers)
          const commitsBefore = member.countsStoreCommits ? await lmdbCommits(p.server.url) : 0
          if (member.measuresLoopLag) await resetEventLoopLag(p.server.url)
          const cpuBefore = await p.server.cpuMicros()
          const window = openCpuWindow(ctx.pids())
          into.slices.push(await p.slice(sliceSeconds))
          const other = window.otherCpuPct()
          into.cpuMicros += (await p.server.cpuMicros()) - cpuBefore
          if (other !== undefined) into.otherCpu.push(other)
          if (member.measuresLoopLag) into.lag.push(await eventLoopLagP99Ms(p.server.url))
          into.upstream += (await upstreamRequests(servers)) - upBefore
          if (member.countsStoreCommits) into.commits += (await lmdbCommits(p.server.url)) - commitsBefore
          const moves = moved(auditBefore, (await member.audit?.(servers)) ?? {})
          for (const [name, delta] of Object.entries(moves)) into.audited[name] = (into.audited[name] ?? 0) + delta
        }
      }
      const mockUrl = (await servers.mock()).url
      const measured = running.map((member, i): RowResult => {
        const p = prepared[i]!
        const t = taken[i]!
        const sum = (pick: (slice: Slice) => number) => t.slices.reduce((total, slice) => total + pick(slice), 0)
        const seconds = sum((x) => x.seconds)
        const answered = Math.max(
          1,
          sum((x) => x.answered),
        )
        const latencies = ascending(t.slices.flatMap((x) => x.latencies))
        const ttfbs = ascending(t.slices.flatMap((x) => x.ttfbs))
        const timeouts = sum((x) => x.timeouts)
        return {
          ...member.def,
          ...labelled(member.def, p.probe),
          figures: {
            rps: sum((x) => x.ok) / seconds,
            p50Ms: percentile(latencies, 50),
            p99Ms: percentile(latencies, 99),
            ...(member.isStream ? { ttfbP50Ms: percentile(ttfbs, 50), ttfbP99Ms: percentile(ttfbs, 99), stalls: sum((x) => x.stalls) } : {}),
            ok: sum((x) => x.ok),
            failed: sum((x) => x.failed),
            cpuMicrosPerAnswer: t.cpuMicros / answered,
            ...(t.otherCpu.length === 0 ? {} : { otherCpuPct: t.otherCpu.reduce((a, b) => a + b, 0) / t.otherCpu.length }),
            ...(p.server.url === mockUrl ? {} : { upstreamPerAnswer: t.upstream / answered }),
            ...(member.countsStoreCommits ? { storeCommitsPerAnswer: t.commits / answered } : {}),
            ...(t.lag.length === 0 ? {} : { loopLagP99Ms: median(t.lag) }),
          },
          ...(member.audit === undefined ? {} : { audited: t.audited }),
          notes: [
            p.probe.note,
            `${p.connections} connections`,
            ...(p.server.placement === undefined ? [] : [p.server.placement]),
            ...(timeouts > 0 ? [`${timeouts} timeouts`] : []),
            ...new Set(t.slices.flatMap((x) => x.problems)),
          ],
        }
      })
      return [...measured, ...skipped]
    },
  }
}

export interface InterleavedTarget {
  readonly name: string
  target(servers: LaneServers): Promise<StreamTarget>
  /** The row's probe; a 200 is enough otherwise. */
  probe?(load: LoadRequest, servers: LaneServers): Promise<ProbeResult>
  /** Why the row cannot run on this machine, or undefined when it can. */
  unavailable?(): string | undefined
}

/**
 * Unloaded latency rows, one request at a time, interleaved; every row but the first is compared
 * with the first. The chosen rows run, and the first always, as their baseline.
 */
export function interleavedStep(targets: readonly InterleavedTarget[]): Step {
  const base = targets[0]!.name
  const defs: RowDef[] = targets.map((t, i) => ({ name: t.name, kind: 'latency', ...(i === 0 ? {} : { baseline: base }) }))
  return {
    rows: defs,
    async run(servers, ctx, chosen) {
      const skipped: RowResult[] = []
      const running = targets.flatMap((t, i) => {
        if (i > 0 && !chosen.has(t.name)) return []
        const reason = t.unavailable?.()
        if (reason !== undefined) skipped.push(skippedRow(defs[i]!, reason))
        return reason === undefined ? [{ target: t, def: defs[i]! }] : []
      })
      const streams = await Promise.all(running.map(({ target }) => target.target(servers)))
      const probes = await Promise.all(
        running.map(({ target }, i) => (target.probe ?? ((l: LoadRequest) => expectStatus200(target.name)(l)))(streams[i]!.load, servers)),
      )
      const s = ctx.settings
      ctx.progress(
        `${running.map(({ target }) => target.name).join(', ')}: one connection each, interleaved; ${s.warmupSeconds} s warm-up, ${s.durationSeconds} s measured`,
      )
      const window = openCpuWindow(ctx.pids())
      const measured = await runInterleaved(streams, { warmupSeconds: s.warmupSeconds, durationSeconds: s.durationSeconds })
      const otherCpuPct = window.otherCpuPct()
      return [
        ...measured.map(
          (m, i): RowResult => ({
            ...running[i]!.def,
            ...labelled(running[i]!.def, probes[i]!),
            figures: {
              p50Ms: m.p50Ms,
              p99Ms: m.p99Ms,
              ttfbP50Ms: m.ttfbP50Ms,
              ttfbP99Ms: m.ttfbP99Ms,
              ok: m.ok,
              failed: m.failed,
              ...(otherCpuPct === undefined ? {} : { otherCpuPct }),
            },
            notes: [probes[i]!.note, `${m.ok} requests`, ...m.problems],
          }),
        ),
        ...skipped,
      ]
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
        let m: Awaited<ReturnType<typeof runStreamLoad>>
        try {
          m = await runStreamLoad(stream, {
            connections: open,
            warmupSeconds: s.warmupSeconds,
            durationSeconds: s.durationSeconds,
            stallMs: s.stallMs,
            drainMs: Math.max(5000, 2 * s.stallMs),
          })
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
          ...def,
          ...labelled(def, probe),
          figures: {
            rps: m.streamsPerSecond,
            p50Ms: m.p50Ms,
            p99Ms: m.p99Ms,
            ttfbP50Ms: m.ttfbP50Ms,
            ttfbP99Ms: m.ttfbP99Ms,
            ttftP99Ms: m.ttftP99Ms,
            ok: m.ok,
            failed: m.failed,
            stalls: m.stalls,
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
