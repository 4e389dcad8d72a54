// Turns measurements into report rows: ratios against each row's baseline, measured in the same
// run, and a verdict per goal. A row that is not what its name says, or that had failed
// responses, is not judged: its numbers would flatter the gateway.
import type { Measurement } from './load.ts'
import type { ProbeResult, Scenario } from './scenarios.ts'

export interface Outcome {
  readonly scenario: Scenario
  readonly probe: ProbeResult
  readonly measurement: Measurement
  /** CPU time the loaded server process spent per answered request (all its threads). */
  readonly serverCpuMicrosPerRequest: number
  /** How the scenario's audit counters moved during the measured run. */
  readonly audited: Readonly<Record<string, number>>
  /** The server's event-loop lag p99 over the measured run, when the scenario reads it. */
  readonly eventLoopLagP99Ms?: number
}

export interface Comparison {
  readonly baseline: string
  /** req/s of this row over the baseline's. */
  readonly requestRatio: number
  /** p99 of this row over the baseline's. */
  readonly p99Ratio: number
}

export type Verdict = 'pass' | 'fail' | 'not judged'

export interface Check {
  readonly row: string
  readonly goal: string
  readonly actual: string
  readonly verdict: Verdict
  readonly reason?: string
}

export interface Row {
  readonly name: string
  readonly label: string
  readonly measurement: Measurement
  readonly serverCpuMicrosPerRequest: number
  readonly eventLoopLagP99Ms?: number
  readonly comparison?: Comparison
  readonly notes: readonly string[]
}

export interface Comparisons {
  readonly rows: readonly Row[]
  readonly checks: readonly Check[]
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(0)}%`
const times = (ratio: number) => `${ratio.toFixed(2)}x`

function failedResponses(m: Measurement): number {
  return m.non2xx + m.errors
}

interface Goal {
  readonly text: string
  actual(c: Comparison): string
  passes(c: Comparison): boolean
}

function goalsOf(scenario: Scenario): Goal[] {
  const goals: Goal[] = []
  const { minRequestRatio, maxP99Ratio } = scenario.goals ?? {}
  if (minRequestRatio !== undefined) {
    goals.push({ text: `req/s >= ${percent(minRequestRatio)} of ${scenario.baseline}`, actual: (c) => percent(c.requestRatio), passes: (c) => c.requestRatio >= minRequestRatio })
  }
  if (maxP99Ratio !== undefined) {
    goals.push({ text: `p99 <= ${times(maxP99Ratio)} ${scenario.baseline}`, actual: (c) => times(c.p99Ratio), passes: (c) => c.p99Ratio <= maxP99Ratio })
  }
  return goals
}

/** Why a row's goals cannot be judged fairly, if they cannot. */
function whyNotJudged(outcome: Outcome, label: string, base: Outcome | undefined): string | undefined {
  if (!outcome.probe.isAsNamed) return label
  if (failedResponses(outcome.measurement) > 0) return `${failedResponses(outcome.measurement)} failed responses`
  if (base === undefined) return `baseline ${outcome.scenario.baseline} was not run`
  if (!base.probe.isAsNamed) return `baseline ${base.scenario.name} is not as named`
  if (failedResponses(base.measurement) > 0) return `baseline ${base.scenario.name} had failed responses`
  return undefined
}

export function compare(outcomes: readonly Outcome[]): Comparisons {
  const byName = new Map(outcomes.map((outcome) => [outcome.scenario.name, outcome]))
  const rows: Row[] = []
  const checks: Check[] = []
  for (const outcome of outcomes) {
    const { scenario, probe, measurement } = outcome
    const label = probe.isAsNamed ? scenario.name : probe.label ?? `${scenario.name} (not as named)`
    const notes = [probe.note, ...Object.entries(outcome.audited).map(([name, delta]) => `${name} during the run: +${delta}`)]
    const base = scenario.baseline === undefined ? undefined : byName.get(scenario.baseline)
    const comparison: Comparison | undefined = base === undefined ? undefined : {
      baseline: base.scenario.name,
      requestRatio: measurement.requestsPerSecond / base.measurement.requestsPerSecond,
      p99Ratio: measurement.p99Ms / base.measurement.p99Ms,
    }
    const row: Row = {
      name: scenario.name, label, measurement, serverCpuMicrosPerRequest: outcome.serverCpuMicrosPerRequest, notes,
      ...(outcome.eventLoopLagP99Ms === undefined ? {} : { eventLoopLagP99Ms: outcome.eventLoopLagP99Ms }),
    }
    rows.push(comparison === undefined ? row : { ...row, comparison })

    const why = whyNotJudged(outcome, label, base)
    for (const goal of goalsOf(scenario)) {
      if (comparison === undefined || why !== undefined) {
        const actual = comparison === undefined ? '-' : goal.actual(comparison)
        checks.push({ row: scenario.name, goal: goal.text, actual, verdict: 'not judged', reason: why ?? 'no baseline' })
      } else {
        checks.push({ row: scenario.name, goal: goal.text, actual: goal.actual(comparison), verdict: goal.passes(comparison) ? 'pass' : 'fail' })
      }
    }
  }
  return { rows, checks }
}
