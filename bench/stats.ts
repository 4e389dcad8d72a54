// Order statistics over exact samples. Every latency the benchmark reports is taken from all the
// samples of a run, not from a histogram's buckets, so sub-millisecond differences stay visible.

/** The nearest-rank percentile (0 < p <= 100) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

/** Sorts a copy ascending. */
export function ascending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b)
}

/** The median of the finite values; NaN when there are none. */
export function median(values: readonly number[]): number {
  const finite = ascending(values.filter(Number.isFinite))
  if (finite.length === 0) return Number.NaN
  const mid = finite.length >> 1
  return finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2
}

export interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
}

/** Median, min and max of the finite values (NaN for all three when there are none). */
export function spreadOf(values: readonly number[]): Spread {
  const finite = values.filter(Number.isFinite)
  if (finite.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN }
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite) }
}
