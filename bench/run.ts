// npm run bench [-- --json] [-- --only TEXT]
//
// Loads each scenario's target with the same autocannon settings and reports req/s, latency and
// failures, with ratios against baselines measured in the same run. Every server runs in its own
// child process; all of them are stopped at the end, and the gateways' temporary stores with them.
//
// BENCH_DURATION   seconds measured per row (default 10), after a 2 s warm-up that is not counted
// BENCH_CPU_PROF   a directory: each gateway child writes a V8 CPU profile there when it stops
// --only TEXT      only the scenarios whose name contains TEXT, plus their baselines
import { rmSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { parseArgs } from 'node:util'
import { compare, type Outcome } from './compare.ts'
import { runLoad, type LoadSettings } from './load.ts'
import { Fleet } from './processes.ts'
import { formatJson, formatReport, type RunInfo } from './report.ts'
import { scenarios, type Scenario, type Targets } from './scenarios.ts'
import { eventLoopLagP99Ms, resetEventLoopLag } from './server-metrics.ts'
import { startTargets } from './start-targets.ts'

const CONNECTIONS = 50
const WARMUP_SECONDS = 2
const DEFAULT_DURATION_SECONDS = 10

function durationSeconds(): number {
  const raw = process.env.BENCH_DURATION
  if (raw === undefined || raw === '') return DEFAULT_DURATION_SECONDS
  const seconds = Number(raw)
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`BENCH_DURATION must be a positive number of seconds, got "${raw}"`)
  return seconds
}

function selected(only: string | undefined): Scenario[] {
  if (only === undefined) return [...scenarios]
  const chosen = new Set(scenarios.filter((s) => s.name.includes(only)).map((s) => s.name))
  for (const s of scenarios) if (chosen.has(s.name) && s.baseline !== undefined) chosen.add(s.baseline)
  return scenarios.filter((s) => chosen.has(s.name))
}

const progress = (text: string) => process.stderr.write(`bench: ${text}\n`)

function moved(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, value]) => [name, value - (before[name] ?? 0)]))
}

async function runScenario(scenario: Scenario, targets: Targets, settings: LoadSettings): Promise<Outcome> {
  const load = scenario.request(targets)
  const probe = await scenario.probe(load)
  progress(`${scenario.name}: ${probe.note}; ${WARMUP_SECONDS} s warm-up, then ${settings.durationSeconds} s measured`)
  await runLoad(load, { connections: settings.connections, durationSeconds: WARMUP_SECONDS })
  const server = targets[scenario.server]
  const before = (await scenario.audit?.(targets)) ?? {}
  const cpuBefore = await server.cpuMicros()
  if (scenario.measuresEventLoopLag === true) await resetEventLoopLag(server.url)
  const measurement = await runLoad(load, settings)
  const lagP99Ms = scenario.measuresEventLoopLag === true ? await eventLoopLagP99Ms(server.url) : undefined
  const cpuAfter = await server.cpuMicros()
  const after = (await scenario.audit?.(targets)) ?? {}
  const answered = Math.max(1, measurement.ok + measurement.non2xx)
  const outcome: Outcome = { scenario, probe, measurement, serverCpuMicrosPerRequest: (cpuAfter - cpuBefore) / answered, audited: moved(before, after) }
  return lagP99Ms === undefined ? outcome : { ...outcome, eventLoopLagP99Ms: lagP99Ms }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false }, only: { type: 'string' } } })
  const settings: LoadSettings = { connections: CONNECTIONS, durationSeconds: durationSeconds() }
  const chosen = selected(values.only)
  const profileDir = process.env.BENCH_CPU_PROF
  const fleet = new Fleet()
  // A gateway removes its store when it stops; this covers a gateway that had to be killed.
  let gatewayDataDirs: readonly string[] = []
  const removeDataDir = () => {
    for (const dir of gatewayDataDirs) rmSync(dir, { recursive: true, force: true })
  }
  const cleanUp = async () => {
    await fleet.stopAll()
    removeDataDir()
  }
  // Last resort when the process ends some other way: nothing asynchronous runs in 'exit'.
  process.once('exit', () => {
    fleet.killAllNow()
    removeDataDir()
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`${signal}: stopping`)
      cleanUp().finally(() => process.exit(130))
    })
  }

  try {
    progress('starting mock upstream, bare forwarder, gateways and static floor')
    const started = await startTargets(fleet, profileDir === undefined ? {} : { profileDir })
    gatewayDataDirs = started.gatewayDataDirs
    const { targets } = started
    const outcomes: Outcome[] = []
    for (const scenario of chosen) outcomes.push(await runScenario(scenario, targets, settings))
    const info: RunInfo = {
      connections: CONNECTIONS, durationSeconds: settings.durationSeconds, warmupSeconds: WARMUP_SECONDS,
      node: process.version, cpus: availableParallelism(),
    }
    const result = compare(outcomes)
    process.stdout.write(`${values.json ? formatJson(info, result) : formatReport(info, result)}\n`)
  } finally {
    await cleanUp()
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
