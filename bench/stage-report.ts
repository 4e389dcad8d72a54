// The table `npm run bench:stages` prints for one row: each stage's CPU per request (median and
// the spread over the repeats), the gateway's total beside the lean forwarder's, and the facts
// needed to trust it.
import type { StageShares } from './stage-shares.ts'
import { STAGES, type Stage } from './stages.ts'
import { spreadOf, type Spread } from './stats.ts'

/** What one repeat measured for one row. */
export interface RepeatFigures {
  /** CPU per answer, µs, all threads. */
  readonly forwarderUs: number
  /** The forwarder's main thread alone. */
  readonly forwarderMainUs: number
  /** The spec floor's (targets/spec-floor.ts): what any gateway of the spec must do, and no more. */
  readonly floorUs: number
  /** The gateway with the router as its only plugin. */
  readonly coreUs: number
  readonly gatewayUs: number
  /** The gateway's main thread alone (its event loop). */
  readonly gatewayMainUs: number
  /** The gateway's other threads, by kind. */
  readonly gatewayThreadsUs: Readonly<Record<ThreadGroup, number>>
  /** The profiled gateway's, all threads: what the profiler added. */
  readonly profiledUs: number
  readonly forwarderRps: number
  readonly gatewayRps: number
  /** Non-2xx answers, errors and cut streams of all the targets. */
  readonly failed: number
  /** CPU other processes used during the windows, % of one core; undefined without /proc. */
  readonly otherCpuPct: number | undefined
  readonly shares: StageShares
}

/** The gateway's threads besides the main one, by their names in /proc. */
export const THREAD_GROUPS = {
  v8: 'other threads: V8 helpers (GC, compiler)',
  libuv: 'other threads: libuv pool (LMDB writes, fs)',
  workers: 'other threads: worker pool',
  rest: 'other threads: the rest, and ended ones',
} as const

export type ThreadGroup = keyof typeof THREAD_GROUPS

const GROUP_BY_THREAD_NAME: Readonly<Record<string, ThreadGroup>> = { V8Worker: 'v8', 'libuv-worker': 'libuv', WorkerThread: 'workers' }

/** The group of a thread other than the main one, by its name. */
export function threadGroupOf(name: string): ThreadGroup {
  return GROUP_BY_THREAD_NAME[name] ?? 'rest'
}

/** µs per answer of every stage in one repeat: its share of the profile times the main thread's CPU. */
export function stageMicros(figures: RepeatFigures): Record<Stage, number> {
  return Object.fromEntries(Object.keys(STAGES).map((stage) => [stage, figures.shares.shares[stage as Stage] * figures.gatewayMainUs])) as Record<Stage, number>
}

const us = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : '-')

function table(head: readonly string[], lines: ReadonlyArray<readonly string[]>): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (l: readonly string[]) => l.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
  return [fmt(head), ...lines.map(fmt)]
}

export function formatRow(title: string, repeats: readonly RepeatFigures[]): string {
  const perStage = repeats.map(stageMicros)
  const gateway = spreadOf(repeats.map((r) => r.gatewayUs))
  const line = (name: string, spread: Spread): string[] => [
    name,
    us(spread.median),
    us(spread.min),
    us(spread.max),
    `${((100 * spread.median) / gateway.median).toFixed(1)}%`,
  ]
  const stages = (Object.keys(STAGES) as Stage[])
    .filter((stage) => stage !== 'unmapped' || perStage.some((s) => s.unmapped > 0))
    .map((stage) => line(STAGES[stage], spreadOf(perStage.map((s) => s[stage]))))
  const forwarder = spreadOf(repeats.map((r) => r.forwarderUs))
  const ratio = spreadOf(repeats.map((r) => r.gatewayUs / r.forwarderUs))
  const floorRatio = spreadOf(repeats.map((r) => r.floorUs / r.forwarderUs))
  const overhead = spreadOf(repeats.map((r) => (100 * (r.profiledUs - r.gatewayUs)) / r.gatewayUs))
  const samples = spreadOf(repeats.map((r) => r.shares.samples))
  const other = spreadOf(repeats.flatMap((r) => (r.otherCpuPct === undefined ? [] : [r.otherCpuPct])))
  const unmapped = new Map<string, number>()
  for (const r of repeats) for (const [file, ms] of r.shares.unmappedFiles) unmapped.set(file, (unmapped.get(file) ?? 0) + ms)
  return [
    `${title}: CPU µs per request over ${repeats.length} repeat(s)`,
    '',
    ...table(
      ['stage', 'median', 'min', 'max', 'of gateway'],
      [
        ...stages,
        ...(Object.keys(THREAD_GROUPS) as ThreadGroup[]).map((group) => line(THREAD_GROUPS[group], spreadOf(repeats.map((r) => r.gatewayThreadsUs[group])))),
        line('gateway total (all threads)', gateway),
        line('lean forwarder total (all threads)', forwarder),
        line('lean forwarder, main thread', spreadOf(repeats.map((r) => r.forwarderMainUs))),
        line('spec floor total (all threads)', spreadOf(repeats.map((r) => r.floorUs))),
        line('core and router only total (all threads)', spreadOf(repeats.map((r) => r.coreUs))),
      ],
    ),
    '',
    `gateway / forwarder CPU per request: ${ratio.median.toFixed(2)}x (${ratio.min.toFixed(2)}–${ratio.max.toFixed(2)})`,
    `spec floor / forwarder CPU per request: ${floorRatio.median.toFixed(2)}x (${floorRatio.min.toFixed(2)}–${floorRatio.max.toFixed(2)}): parsing, checking and rendering alone, no promise kept`,
    ...budgetLines(repeats),
    `req/s (median): gateway ${spreadOf(repeats.map((r) => r.gatewayRps)).median.toFixed(0)}, forwarder ${spreadOf(repeats.map((r) => r.forwarderRps)).median.toFixed(0)}; failed answers: ${repeats.reduce((n, r) => n + r.failed, 0)}`,
    `profile: ${samples.median.toFixed(0)} busy samples per repeat (median); the profiled gateway spent ${overhead.median.toFixed(0)}% (${overhead.min.toFixed(0)}–${overhead.max.toFixed(0)}) more CPU per request than the one measured`,
    ...(other.median === undefined || Number.isNaN(other.median)
      ? []
      : [`other processes on the machine: ${other.median.toFixed(0)}% of a core (median over the windows; ${other.min.toFixed(0)}–${other.max.toFixed(0)})`]),
    ...(unmapped.size === 0
      ? []
      : [
          `files not in bench/stages.ts (counted as "${STAGES.unmapped}"): ${[...unmapped]
            .sort((a, b) => b[1] - a[1])
            .map(([file, ms]) => `${file} ${ms.toFixed(0)} ms`)
            .join(', ')}`,
        ]),
    'Stage medians need not add up to the median total: each is the median of its own repeats.',
  ].join('\n')
}

/**
 * Where the gateway's CPU above the forwarder's goes, in the terms of the ≤ 2x target: what the
 * spec's answer shape costs, what the core costs beyond it, and what the promises cost on top.
 */
function budgetLines(repeats: readonly RepeatFigures[]): string[] {
  const spread = (of: (r: RepeatFigures) => number) => {
    const s = spreadOf(repeats.map(of))
    return `${us(s.median)} µs (${us(s.min)}–${us(s.max)})`
  }
  return [
    `the ≤ 2x target leaves above the spec floor (2 x forwarder - floor): ${spread((r) => 2 * r.forwarderUs - r.floorUs)}`,
    `the core beyond the spec floor (core only - floor): ${spread((r) => r.coreUs - r.floorUs)}`,
    `the promises: key, limits, budget, ledger, cache (gateway - core only): ${spread((r) => r.gatewayUs - r.coreUs)}`,
  ]
}
