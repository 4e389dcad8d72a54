// npm run bench [-- --repeat 3] [-- --only TEXT[,TEXT]] [-- --stretch] [-- --json]
//
// Measures the gateway against baselines run in the same repeat: the lean forwarder
// (targets/lean-forwarder.ts) for every proxied row, the direct mock for added latency, a static
// node:http server answering the same bytes for cache hits, the gateway on LMDB for the same rows
// on PostgreSQL + Redis, and `tollgate serve --workers 1` for the same rows with more workers
// (`--only scaling`). Rows and lanes are in lanes.ts. Every server runs in its own process,
// pinned apart from the load generator where taskset exists (a cluster on the cores it gets, see
// pinning.ts); all are stopped at the end, and the temporary stores (the gateways', PostgreSQL's
// and Redis's) with them.
//
// --repeat N        run every row N times; the report gives medians of the per-repeat figures
// --only TEXT,...   only the rows whose name contains one of the texts (case-insensitive; `=NAME`
//                   for exactly that row), plus their baselines; the Governor placement rows run
//                   only when named (`--only governor`); a comma followed by a space belongs to
//                   the text (row names have them)
// --stretch         add the 2048-stream step
// --duration S      seconds measured per row (default 10; env BENCH_DURATION), after --warmup S (2)
// --connections N   closed-loop connections (default 50; the 20 ms mock rows use twice as many)
// --pin auto|off    pinning (default auto)
// --json            print JSON instead of the tables
import { rmSync } from 'node:fs'
import { availableParallelism, cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { boardOf } from './board.ts'
import { pinOption, positive, runCommand, UsageError } from './command-line.ts'
import { summarise } from './compare.ts'
import { judge } from './goals.ts'
import { lanes, ROW, STREAM_STEPS, STRETCH_STEP, SUSTAINED_LATENCY_MS } from './lanes.ts'
import { pinLoadGenerator, scalingWorkers } from './pinning.ts'
import { Fleet } from './processes.ts'
import { formatJson, formatReport, type Summary } from './report.ts'
import { selectSteps, type Selection } from './select.ts'
import type { RowResult, Settings, StepContext } from './rows.ts'
import { LaneServers } from './servers.ts'

const MAX_SECONDS = 3 * 3600

const progress = (text: string) => process.stderr.write(`bench: ${text}\n`)

function estimateSeconds(plan: Selection, settings: Settings, repeats: number): number {
  const perRow = settings.warmupSeconds + settings.durationSeconds
  let seconds = 0
  for (const { steps } of plan.lanes) {
    seconds += 6
    for (const step of steps) {
      const kind = step.rows[0]!.kind
      const rows = step.rows.filter((row) => plan.rows.has(row.name)).length
      seconds += kind === 'latency' ? perRow : kind === 'streams' ? step.rows.length * (perRow + 2) : rows * (perRow + 1)
    }
  }
  return seconds * repeats
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      only: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      stretch: { type: 'boolean', default: false },
      duration: { type: 'string', default: process.env.BENCH_DURATION ?? '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '50' },
      pin: { type: 'string', default: 'auto' },
    },
  })
  const connections = Math.round(positive(values.connections, '--connections'))
  // Before pinning: once pinned, this process sees one CPU.
  const cpuCount = availableParallelism()
  const settings: Settings = {
    connections,
    sustainedConnections: 2 * connections,
    warmupSeconds: positive(values.warmup, '--warmup'),
    durationSeconds: positive(values.duration, '--duration'),
    streamSteps: values.stretch ? [...STREAM_STEPS, STRETCH_STEP] : [...STREAM_STEPS],
    scalingWorkers: scalingWorkers(cpuCount),
    stallMs: 1000,
  }
  const repeats = Math.round(positive(values.repeat, '--repeat'))
  const plan = selectSteps(lanes(settings), values.only)
  if (plan.lanes.length === 0) throw new UsageError(`--only ${values.only}: no row matches`)

  const pinning = pinLoadGenerator(pinOption(values.pin))
  const fleet = new Fleet(pinning.serverCpu)
  // A gateway removes its store when it stops, and the shared stores their data; this covers a
  // server that had to be killed.
  const dataDirs = new Set<string>()
  const removeDataDirs = () => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
  }
  // Last resort when the process ends some other way: nothing asynchronous runs in 'exit'.
  process.once('exit', () => {
    fleet.killAllNow()
    removeDataDirs()
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping`)
      fleet.stopAll().finally(() => process.exit(130))
    })
  }
  const watchdog = setTimeout(() => {
    progress(`the run exceeded ${MAX_SECONDS} s: stopping`)
    fleet.stopAll().finally(() => process.exit(3))
  }, MAX_SECONDS * 1000)
  watchdog.unref()

  progress(`pinning: ${pinning.description}`)
  progress(
    `plan: ${plan.lanes.map(({ lane, steps }) => `${lane.name} (${steps.flatMap((s) => s.rows).filter((r) => plan.rows.has(r.name)).length} rows)`).join(', ')} x ${repeats}, about ${Math.ceil(estimateSeconds(plan, settings, repeats) / 60)} min`,
  )
  const ctx: StepContext = { settings, progress, pids: () => fleet.pids() }
  const began = Date.now()
  const startedAt = new Date().toISOString()
  const results: RowResult[][] = []
  try {
    for (let repeat = 1; repeat <= repeats; repeat++) {
      const rows: RowResult[] = []
      for (const { lane, steps } of plan.lanes) {
        progress(`repeat ${repeat}/${repeats}, lane ${lane.name}: starting its servers as rows need them`)
        const servers = new LaneServers(fleet, lane.name, lane.setup)
        try {
          for (const step of steps) rows.push(...(await step.run(servers, ctx, plan.rows)))
        } finally {
          for (const dir of servers.dataDirs) dataDirs.add(dir)
          await servers.stop()
        }
      }
      results.push(rows)
      const ratio = (name: string) => {
        const row = rows.find((r) => r.name === name)
        const base = rows.find((r) => r.name === row?.baseline)
        return row?.figures.rps === undefined || base?.figures.rps === undefined ? '-' : (row.figures.rps / base.figures.rps).toFixed(2)
      }
      progress(
        `repeat ${repeat} done: ${[ROW.missNoCache, ROW.missShared, ROW.chatMiss, ROW.hit, ROW.governed, ROW.scalingJson(2), ROW.scalingChat(2)].map((name) => `${name} ${ratio(name)}x`).join(', ')}`,
      )
    }
  } finally {
    await fleet.stopAll()
    removeDataDirs()
  }

  const rows = summarise(results)
  const summary: Summary = {
    info: {
      startedAt,
      node: process.version,
      cpus: cpuCount,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      pinning: pinning.description,
      connections: settings.connections,
      sustainedConnections: settings.sustainedConnections,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
      repeats,
      stallMs: settings.stallMs,
      lanes: plan.lanes.map(({ lane }) => `${lane.name}: ${lane.description}`),
      wallSeconds: (Date.now() - began) / 1000,
    },
    rows,
    board: boardOf(rows, settings.sustainedConnections, SUSTAINED_LATENCY_MS),
    checks: judge(rows),
  }
  process.stdout.write(`${values.json ? formatJson(summary, results) : formatReport(summary)}\n`)
}

runCommand('bench', main)
