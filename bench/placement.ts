// Where the Governor should scan a text of each size: the inline and pool rows of one size side by
// side, on throughput and on event-loop lag. The verdicts inform the default of inlineScanChars.
import type { SummaryRow } from './compare.ts'
import { GOVERNOR_SIZES, governorRowName, type GovernorSize } from './placement-rows.ts'

export interface PlacementVerdict {
  readonly size: GovernorSize
  readonly text: string
}

/** Why a row cannot be compared fairly, if it cannot. */
function whyNotComparable(row: SummaryRow): string | undefined {
  if (!row.isAsNamed) return row.label
  if (row.figures.ok === 0) return `${row.name} had no answer within the measured run`
  if (row.figures.failed > 0) return `${row.name} had ${row.figures.failed} failed responses`
  if (row.figures.loopLagP99Ms === undefined) return `${row.name} has no event-loop lag figure`
  return undefined
}

function better(inline: number, pool: number, higherWins: boolean, what: string, unit: (n: number) => string): string {
  const figures = `inline ${unit(inline)}, pool ${unit(pool)}`
  if (inline === pool) return `${what}: a tie (${figures})`
  const inlineWins = higherWins ? inline > pool : inline < pool
  return `${what}: ${inlineWins ? 'inline' : 'pool'} (${figures})`
}

/** One verdict per size whose inline and pool rows both ran. */
export function placementVerdicts(rows: readonly SummaryRow[]): PlacementVerdict[] {
  const byName = new Map(rows.map((row) => [row.name, row]))
  const verdicts: PlacementVerdict[] = []
  for (const { label: size } of GOVERNOR_SIZES) {
    const inline = byName.get(governorRowName(size, 'scan inline'))
    const pool = byName.get(governorRowName(size, 'scan in pool'))
    if (inline === undefined || pool === undefined) continue
    const why = whyNotComparable(inline) ?? whyNotComparable(pool)
    if (why !== undefined) {
      verdicts.push({ size, text: `not judged (${why})` })
      continue
    }
    const requests = better(inline.figures.rps ?? 0, pool.figures.rps ?? 0, true, 'higher req/s', (n) => n.toFixed(1))
    const lag = better(inline.figures.loopLagP99Ms!, pool.figures.loopLagP99Ms!, false, 'lower event-loop lag p99', (n) => `${n.toFixed(1)} ms`)
    verdicts.push({ size, text: `${requests}; ${lag}` })
  }
  return verdicts
}
