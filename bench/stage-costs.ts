// npm run bench:stages [-- --repeat 3] [-- --seconds 8] [-- --rows json,stream]
//
// Where a real miss's CPU goes, stage by stage, beside the lean forwarder's total CPU per request
// measured in the same run, and the spec floor's (targets/spec-floor.ts: the parsing, checking
// and rendering any gateway of the spec does, with no key, limit, budget, ledger, cache or log).
// Rows: `json` (the bench's "json: complete miss (no-cache)") and `stream` (its "stream: chat
// miss (no-cache)", against the forwarder's OpenAI stream).
//
// Beside them, the gateway with the router as its only plugin (the bench's "core and router only"
// rows): the gateway's total minus it is what the promises cost (key, limits, budget, ledger,
// cache), and it minus the spec floor is what the core costs beyond what the spec demands.
//
// Method. Each repeat starts fresh processes, pinned like `npm run bench`: the mock, the lean
// forwarder, the spec floor, the core-only gateway, a gateway, and a second gateway identical but
// for `node --cpu-prof`. Per row, each of the five is warmed up, then loaded in turn for --seconds
// (the order rotates per repeat).
//   - CPU per request = utime + stime of the process, all threads (/proc/<pid>/stat), over the
//     window, divided by the answers in it.
//   - The gateway's main thread (/proc/<pid>/task/<pid>/stat) is split into stages in proportion
//     to the profiled gateway's samples in its own window: a sample belongs to the innermost
//     frame on its stack whose file bench/stages.ts maps to a stage (see there); stacks with no
//     project frame go to the `other` buckets (undici, LMDB, node, GC).
//   - The gateway's other threads (V8's GC and compiler helpers, libuv's pool, worker threads) are
//     one line of their own; the profiled gateway's own figure is used only to show the
//     profiler's overhead.
//   - Spread: median, min and max over the repeats.
//
// --repeat N        repeats (default 3)
// --seconds S       measured seconds per target and row (default 8), after --warmup S (default 2)
// --rows LIST       json, stream or both (default json,stream)
// --connections N   closed-loop connections (default 50)
// --interval US     profiler sampling interval in µs (default 500)
// --out DIR         where the profiles go (default a new temporary directory); they stay there
// --pin auto|off    pinning (default auto)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { pinOption, positive, runCommand, UsageError } from './command-line.ts'
import type { CpuProfile, TimeWindow } from './cpu-profile.ts'
import { chatProbe, chatStream, complete, missProbe, openai, openaiStream, ROW, viaMockProbe, withoutAuth } from './lanes.ts'
import { runLoad } from './load.ts'
import { openCpuWindow } from './machine.ts'
import { OPENAI_BODY } from './payload.ts'
import { pinLoadGenerator } from './pinning.ts'
import type { LoadRequest } from './probe.ts'
import { processTicks, threadTicks, TICKS_PER_SECOND } from './process-tree.ts'
import { Fleet } from './processes.ts'
import { expectStatus200, type ProbeResult } from './rows.ts'
import { LaneServers, type LaneSetup, type Server } from './servers.ts'
import { formatRow, threadGroupOf, type RepeatFigures, type ThreadGroup } from './stage-report.ts'
import { stageSharesOf } from './stage-shares.ts'
import type { StreamTarget } from './stream-client.ts'
import { runStreamLoad } from './stream-load.ts'
import { routerSchema } from '../plugins/router/schema.ts'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))
// The bench's 0 ms lane: the mock answers at once, a stream is 8 events back to back.
const SETUP: LaneSetup = { mock: { latencyMs: 0, chunks: 8, chunkDelayMs: 0 }, upstreamConnections: routerSchema.parse({}).connections }

interface Settings {
  readonly connections: number
  readonly warmupSeconds: number
  readonly seconds: number
}

/** Closed-loop load on one server for some seconds: answers (and failures) in that time. */
type Load = (seconds: number) => Promise<{ readonly answered: number; readonly failed: number }>

interface Target {
  readonly server: Server
  readonly load: Load
  /** Whether the target answers as the row says (a real miss, a finished stream). */
  readonly probe: ProbeResult
}

interface RowDef {
  readonly title: string
  forwarder(servers: LaneServers, settings: Settings): Promise<Target>
  /** The spec floor, asked the gateway's request. */
  floor(servers: LaneServers, settings: Settings): Promise<Target>
  /** The gateway with the router as its only plugin. */
  core(servers: LaneServers, settings: Settings): Promise<Target>
  gateway(servers: LaneServers, settings: Settings): Promise<Target>
}

const jsonLoad =
  (load: LoadRequest, settings: Settings): Load =>
  async (seconds) => {
    const m = await runLoad(load, { connections: settings.connections, durationSeconds: seconds })
    return { answered: m.ok + m.failed, failed: m.failed }
  }

const streamLoad =
  (stream: StreamTarget, settings: Settings): Load =>
  async (seconds) => {
    const m = await runStreamLoad(stream, { connections: settings.connections, warmupSeconds: 0, durationSeconds: seconds, stallMs: 1000, drainMs: 5000 })
    return { answered: m.answeredTotal, failed: m.failed + m.stalls }
  }

const ROWS: Readonly<Record<string, RowDef>> = {
  json: {
    title: ROW.missNoCache,
    async forwarder(servers, settings) {
      const server = await servers.forwarder()
      const load = openai(server, OPENAI_BODY)
      return { server, load: jsonLoad(load, settings), probe: await expectStatus200(ROW.jsonForwarder)(load) }
    },
    async floor(servers, settings) {
      const server = await servers.specFloor()
      const load = complete({ ...server, projectId: '', key: '' }, 'no-cache')
      return { server, load: jsonLoad(load, settings), probe: await expectStatus200('json: spec floor')(load) }
    },
    async core(servers, settings) {
      const server = await servers.gateway('core only')
      const load = complete(server, 'no-cache')
      return { server, load: jsonLoad(load, settings), probe: await withoutAuth(ROW.coreOnly, viaMockProbe(ROW.coreOnly))(load) }
    },
    async gateway(servers, settings) {
      const server = await servers.gateway()
      const load = complete(server, 'no-cache')
      return { server, load: jsonLoad(load, settings), probe: await missProbe(ROW.missNoCache, 'no-cache')(load, servers) }
    },
  },
  stream: {
    title: ROW.chatMiss,
    async forwarder(servers, settings) {
      const server = await servers.forwarder()
      const stream = openaiStream(server)
      return { server, load: streamLoad(stream, settings), probe: await expectStatus200(ROW.streamForwarder)(stream.load) }
    },
    async floor(servers, settings) {
      const server = await servers.specFloor()
      const stream = chatStream({ ...server, projectId: '', key: '' })
      return { server, load: streamLoad(stream, settings), probe: await expectStatus200('stream: spec floor')(stream.load) }
    },
    async core(servers, settings) {
      const server = await servers.gateway('core only')
      const stream = chatStream(server)
      return { server, load: streamLoad(stream, settings), probe: await withoutAuth(ROW.chatCoreOnly, chatProbe(ROW.chatCoreOnly))(stream.load) }
    },
    async gateway(servers, settings) {
      const server = await servers.gateway()
      const stream = chatStream(server)
      return { server, load: streamLoad(stream, settings), probe: await chatProbe(ROW.chatMiss)(stream.load) }
    },
  },
}

/** Loaded in turn in each repeat; the order rotates from repeat to repeat. */
const TARGETS = ['forwarder', 'floor', 'core', 'gateway', 'profiled'] as const
type Which = (typeof TARGETS)[number]

interface Window extends TimeWindow {
  readonly answered: number
  readonly failed: number
  readonly seconds: number
  /** CPU per answer, µs: all threads, the main thread alone, and the others by kind. */
  readonly cpuUs: number
  readonly mainUs: number
  readonly threadsUs: Readonly<Record<ThreadGroup, number>>
  readonly otherCpuPct: number | undefined
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n)
const ticksToUs = (ticks: number) => (ticks / TICKS_PER_SECOND) * 1e6

async function measure(target: Target, seconds: number, pids: () => number[]): Promise<Window> {
  const { pid } = target.server
  const before = { all: processTicks(pid), threads: threadTicks(pid) }
  if (before.all === 0) throw new Error(`no CPU time for ${target.server.name} (pid ${pid}) in /proc: this benchmark needs Linux`)
  const machine = openCpuWindow(pids())
  const fromUs = nowUs()
  const { answered, failed } = await target.load(seconds)
  const toUs = nowUs()
  const all = processTicks(pid) - before.all
  const after = threadTicks(pid)
  const perAnswer = (ticks: number) => ticksToUs(ticks) / Math.max(1, answered)
  const used = (tid: number) => after.get(tid)!.ticks - (before.threads.get(tid)?.ticks ?? 0)
  const byGroup: Record<ThreadGroup, number> = { v8: 0, libuv: 0, workers: 0, rest: 0 }
  for (const [tid, thread] of after) {
    const group = threadGroupOf(thread.name)
    if (tid !== pid && group !== 'rest') byGroup[group] += used(tid)
  }
  const main = after.has(pid) ? used(pid) : 0
  // The rest: other threads, and those that ended during the window (the process's total keeps
  // their time). Each thread's ticks are rounded on their own and read a moment after the
  // process's total, so their sum can pass it by a tick or two: then the rest is none.
  byGroup.rest = Math.max(0, all - main - byGroup.v8 - byGroup.libuv - byGroup.workers)
  return {
    fromUs,
    toUs,
    answered,
    failed,
    seconds: (toUs - fromUs) / 1e6,
    otherCpuPct: machine.otherCpuPct(),
    cpuUs: perAnswer(all),
    mainUs: perAnswer(main),
    threadsUs: { v8: perAnswer(byGroup.v8), libuv: perAnswer(byGroup.libuv), workers: perAnswer(byGroup.workers), rest: perAnswer(byGroup.rest) },
  }
}

/** The main thread's profile the profiled gateway wrote into `dir` as it stopped. */
function mainThreadProfile(dir: string): CpuProfile {
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread.
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && f.split('.').at(-3) === '0')
  if (files.length !== 1) throw new Error(`expected one main-thread profile in ${dir}, found ${files.length}`)
  return JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as CpuProfile
}

const progress = (text: string) => process.stderr.write(`bench:stages: ${text}\n`)

interface Run {
  readonly fleet: Fleet
  readonly settings: Settings
  readonly rowNames: readonly string[]
  readonly repeats: number
  /** Profiler sampling interval, µs. */
  readonly interval: number
  /** Where the gateways' data directories are, to remove them should a gateway be killed. */
  readonly dataDirs: Set<string>
}

/** One repeat on fresh processes: each row's figures, its stage shares from the profile written into `dir`. */
async function runRepeat(run: Run, repeat: number, dir: string): Promise<Map<string, RepeatFigures>> {
  const { fleet, settings } = run
  const plain = new LaneServers(fleet, `repeat ${repeat}`, SETUP)
  const profiled = new LaneServers(fleet, `repeat ${repeat}, profiled`, SETUP, ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${run.interval}`])
  const windows = new Map<string, Readonly<Record<Which, Window>>>()
  try {
    for (const name of run.rowNames) {
      const row = ROWS[name]!
      const targets = {
        forwarder: await row.forwarder(plain, settings),
        floor: await row.floor(plain, settings),
        core: await row.core(plain, settings),
        gateway: await row.gateway(plain, settings),
        profiled: await row.gateway(profiled, settings),
      }
      for (const { probe } of Object.values(targets)) if (!probe.isAsNamed) throw new Error(`${row.title}: ${probe.label ?? 'not as named'} (${probe.note})`)
      progress(
        `repeat ${repeat}/${run.repeats}, ${name}: ${targets.gateway.probe.note}; ${settings.warmupSeconds} s warm-up each, then ${settings.seconds} s each`,
      )
      for (const target of Object.values(targets)) await target.load(settings.warmupSeconds)
      // The order rotates from repeat to repeat, so no target is always the one after another's load.
      const order = TARGETS.map((_, i, all) => all[(i + repeat - 1) % all.length]!)
      const measured: Partial<Record<Which, Window>> = {}
      for (const which of order) measured[which] = await measure(targets[which], settings.seconds, () => fleet.pids())
      windows.set(name, measured as Record<Which, Window>)
    }
  } finally {
    for (const dataDir of [...plain.dataDirs, ...profiled.dataDirs]) run.dataDirs.add(dataDir)
    // A graceful stop: the profiled gateway writes its profile as it exits.
    await profiled.stop()
    await plain.stop()
  }
  const profile = mainThreadProfile(dir)
  const figures = new Map<string, RepeatFigures>()
  for (const [name, w] of windows) {
    const otherCpu = Object.values(w).flatMap((x) => (x.otherCpuPct === undefined ? [] : [x.otherCpuPct]))
    figures.set(name, {
      forwarderUs: w.forwarder.cpuUs,
      forwarderMainUs: w.forwarder.mainUs,
      floorUs: w.floor.cpuUs,
      coreUs: w.core.cpuUs,
      gatewayUs: w.gateway.cpuUs,
      gatewayMainUs: w.gateway.mainUs,
      gatewayThreadsUs: w.gateway.threadsUs,
      profiledUs: w.profiled.cpuUs,
      forwarderRps: w.forwarder.answered / w.forwarder.seconds,
      gatewayRps: w.gateway.answered / w.gateway.seconds,
      failed: Object.values(w).reduce((n, x) => n + x.failed, 0),
      otherCpuPct: otherCpu.length === 0 ? undefined : otherCpu.reduce((a, b) => a + b, 0) / otherCpu.length,
      shares: stageSharesOf(profile, ROOT, w.profiled),
    })
    progress(
      `repeat ${repeat}, ${name}: gateway ${w.gateway.cpuUs.toFixed(0)} µs, core only ${w.core.cpuUs.toFixed(0)} µs, spec floor ${w.floor.cpuUs.toFixed(0)} µs, forwarder ${w.forwarder.cpuUs.toFixed(0)} µs per request`,
    )
  }
  return figures
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repeat: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '8' },
      warmup: { type: 'string', default: '2' },
      rows: { type: 'string', default: 'json,stream' },
      connections: { type: 'string', default: '50' },
      interval: { type: 'string', default: '500' },
      out: { type: 'string' },
      pin: { type: 'string', default: 'auto' },
    },
  })
  const rowNames = values.rows.split(',').map((name) => name.trim())
  for (const name of rowNames) if (ROWS[name] === undefined) throw new UsageError(`--rows takes ${Object.keys(ROWS).join(', ')}, got "${name}"`)
  const settings: Settings = {
    connections: Math.round(positive(values.connections, '--connections')),
    warmupSeconds: positive(values.warmup, '--warmup'),
    seconds: positive(values.seconds, '--seconds'),
  }
  const outDir = values.out === undefined ? mkdtempSync(join(tmpdir(), 'tollgate-stages-')) : resolve(values.out)
  const pinning = pinLoadGenerator(pinOption(values.pin))
  const run: Run = {
    fleet: new Fleet(pinning.serverCpu),
    settings,
    rowNames,
    dataDirs: new Set(),
    repeats: Math.round(positive(values.repeat, '--repeat')),
    interval: Math.round(positive(values.interval, '--interval')),
  }
  // Last resort when the process ends some other way: nothing asynchronous runs in 'exit'.
  process.once('exit', () => {
    run.fleet.killAllNow()
    for (const dir of run.dataDirs) rmSync(dir, { recursive: true, force: true })
  })
  progress(`pinning: ${pinning.description}`)
  const figures = new Map<string, RepeatFigures[]>(rowNames.map((name) => [name, []]))
  try {
    for (let repeat = 1; repeat <= run.repeats; repeat++) {
      const dir = join(outDir, `repeat-${repeat}`)
      mkdirSync(dir, { recursive: true })
      for (const [name, f] of await runRepeat(run, repeat, dir)) figures.get(name)!.push(f)
    }
  } finally {
    await run.fleet.stopAll()
  }

  const method = [
    `Method: CPU per request = utime+stime of the process, all threads (/proc/<pid>/stat), over each ${settings.seconds} s window ÷ answers in it;`,
    "the gateway's main-thread part (/proc/<pid>/task/<pid>/stat) is split by the stage shares of a V8 CPU profile of an identical gateway loaded in",
    `the same repeat (a sample every ${run.interval} µs counts for the innermost frame on its stack that bench/stages.ts maps to a stage; no project frame:`,
    'an "other" bucket); its other threads by their names. Each repeat starts fresh processes; forwarder, spec floor, core only, gateway and profiled gateway take turns.',
    `Spread: median, min, max over ${run.repeats} repeat(s). Pinning: ${pinning.description}; ${settings.connections} connections; profiles in ${outDir}.`,
  ]
  process.stdout.write(`${[...method, ...rowNames.map((name) => `\n${formatRow(ROWS[name]!.title, figures.get(name)!)}`)].join('\n')}\n`)
}

runCommand('bench:stages', main)
