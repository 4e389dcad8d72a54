// What the model could add at each false-positive rate: the threshold that lets a given share of
// the benign texts the rules leave undecided through, and what it then flags among the undecided
// attacks and the benign near-misses. One threshold for every script, on held-out scores: it
// shows whether any threshold would meet the budget, not what the shipped thresholds do.
import type { Share } from './figures.ts'
import { thresholdFor } from './held-out.ts'

export interface OperatingPoint {
  /** Share of the undecided benign texts the threshold lets through. */
  readonly rate: number
  readonly threshold: number
  readonly attacks: Share
  readonly nearMisses: Share
}

export const CURVE_RATES = [0.005, 0.01, 0.02, 0.05, 0.1] as const

const above = (scores: readonly number[], threshold: number): Share => ({ flagged: scores.filter((s) => s > threshold).length, of: scores.length })

export function operatingCurve(
  benign: readonly number[],
  attacks: readonly number[],
  nearMisses: readonly number[],
  rates: readonly number[] = CURVE_RATES,
): OperatingPoint[] {
  return rates.map((rate) => {
    const threshold = thresholdFor(benign, rate)
    return { rate, threshold, attacks: above(attacks, threshold), nearMisses: above(nearMisses, threshold) }
  })
}
