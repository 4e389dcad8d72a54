// The targets the gateway is judged against, each on a figure of one summary row. A row that is
// not what its name says, that had failed answers, or whose baseline did not run cleanly, is not
// judged: its figure would flatter the gateway.
import type { SummaryRow } from './compare.ts'
import { ROW, STREAM_STEPS } from './lanes.ts'

export type Verdict = 'pass' | 'fail' | 'not judged'

export interface Check {
  readonly row: string
  readonly goal: string
  readonly actual: string
  readonly verdict: Verdict
  readonly reason?: string
}

interface Goal {
  readonly row: string
  readonly text: string
  /** The measured figure, shown as text, and whether it meets the goal; undefined when missing. */
  judge(row: SummaryRow): { readonly actual: string; readonly passes: boolean } | undefined
}

const ms = (n: number) => `${n.toFixed(3)} ms`
const x = (n: number) => `${n.toFixed(2)}x`

function atLeast(row: string, min: number): Goal {
  return {
    row,
    text: `req/s >= ${x(min)} its baseline (median of repeats)`,
    judge: (r) => (r.derived.ratio === undefined || Number.isNaN(r.derived.ratio) ? undefined : { actual: x(r.derived.ratio), passes: r.derived.ratio >= min }),
  }
}

function addedAtMost(row: string, figure: 'addedP50Ms' | 'addedP99Ms' | 'addedTtfbP99Ms', maxMs: number, what: string): Goal {
  return {
    row,
    text: `${what} <= ${maxMs} ms over the direct mock`,
    judge: (r) => {
      const value = r.derived[figure]
      return value === undefined || Number.isNaN(value) ? undefined : { actual: ms(value), passes: value <= maxMs }
    },
  }
}

/** Under load with two workers, the shared store takes at most one commit per 20 requests. */
const MAX_COMMITS_PER_ANSWER = 1 / 20

function commitsAtMost(row: string): Goal {
  return {
    row,
    text: `LMDB commits per answer <= ${MAX_COMMITS_PER_ANSWER} (one per ${1 / MAX_COMMITS_PER_ANSWER} requests)`,
    judge: (r) => {
      const commits = r.figures.storeCommitsPerAnswer
      return commits === undefined || Number.isNaN(commits) ? undefined : { actual: commits.toFixed(3), passes: commits <= MAX_COMMITS_PER_ANSWER }
    },
  }
}

/** The step the gateway must hold: every stream finished, none stalled, at the forwarder's rate, memory flat. */
const FLAT_MEMORY_GROWTH = 0.1
const FORWARDER_RATE = 0.95
const HELD_STEP = STREAM_STEPS[STREAM_STEPS.length - 1]!

const streamsHeld: Goal = {
  row: ROW.streamsChat(HELD_STEP),
  text: `${HELD_STEP} open streams: none failed or stalled, streams/s >= ${x(FORWARDER_RATE)} the forwarder's, RSS at the window's end within ${FLAT_MEMORY_GROWTH * 100}% of a quarter into it`,
  judge: (r) => {
    const f = r.figures
    if (r.derived.ratio === undefined || f.rssQuarterMb === undefined || f.rssEndMb === undefined) return undefined
    const growth = f.rssEndMb / f.rssQuarterMb - 1
    const actual = `${f.failed} failed, ${f.stalls ?? 0} stalled, ${x(r.derived.ratio)}, RSS ${f.rssQuarterMb.toFixed(0)} -> ${f.rssEndMb.toFixed(0)} MB (${(growth * 100).toFixed(1)}%)`
    return { actual, passes: f.failed === 0 && (f.stalls ?? 0) === 0 && r.derived.ratio >= FORWARDER_RATE && growth <= FLAT_MEMORY_GROWTH }
  },
}

export const GOALS: readonly Goal[] = [
  atLeast(ROW.missNoCache, 0.6),
  atLeast(ROW.chatMiss, 0.5),
  addedAtMost(ROW.ttfbChat, 'addedTtfbP99Ms', 1, 'added TTFB p99'),
  addedAtMost(ROW.oneMiss, 'addedP50Ms', 0.5, 'added p50'),
  addedAtMost(ROW.oneMiss, 'addedP99Ms', 1.5, 'added p99'),
  atLeast(ROW.hit, 0.35),
  streamsHeld,
  atLeast(ROW.governed, 0.35),
  commitsAtMost(ROW.scalingJson(2)),
  commitsAtMost(ROW.scalingJsonLimited(2)),
  commitsAtMost(ROW.scalingChat(2)),
]

function whyNotJudged(row: SummaryRow, base: SummaryRow | undefined, isStreamGoal: boolean): string | undefined {
  if (!row.isAsNamed) return row.label
  // A failure or stall is part of what the streams goal judges.
  if (!isStreamGoal && row.figures.failed > 0) return `${row.figures.failed} failed answers`
  if (row.baseline === undefined) return undefined
  if (base === undefined) return `baseline ${row.baseline} did not run`
  if (!base.isAsNamed) return `baseline ${base.label}`
  if (base.figures.failed > 0 || (base.figures.stalls ?? 0) > 0) return `baseline ${base.name} had failed or stalled answers`
  return undefined
}

/** A verdict per goal whose row ran. */
export function judge(rows: readonly SummaryRow[]): Check[] {
  const byName = new Map(rows.map((row) => [row.name, row]))
  const checks: Check[] = []
  for (const goal of GOALS) {
    const row = byName.get(goal.row)
    if (row === undefined) continue
    const why = whyNotJudged(row, row.baseline === undefined ? undefined : byName.get(row.baseline), goal === streamsHeld)
    const judged = goal.judge(row)
    if (judged === undefined || why !== undefined) {
      checks.push({ row: goal.row, goal: goal.text, actual: judged?.actual ?? '-', verdict: 'not judged', reason: why ?? 'figure missing' })
    } else {
      checks.push({ row: goal.row, goal: goal.text, actual: judged.actual, verdict: judged.passes ? 'pass' : 'fail' })
    }
  }
  return checks
}
