// Which pieces of a request's CPU work run on the event loop and which go to the worker pool.
// Small pieces cost less inline than a pool round trip (tens of microseconds), but the loop serves
// every tenant, so what one request may do there is bounded: each piece by `maxInline`, all of a
// request's pieces together by `budget`. The rest goes to the pool, after admission.
export interface InlineLimits {
  /** The largest piece done inline. */
  readonly maxInline: number
  /** The most done inline per request, summed over its pieces. */
  readonly budget: number
}

/** Indexes of the pieces to do inline and of those to pool, each in the pieces' order. */
export function inlineOrPooled(sizes: readonly number[], limits: InlineLimits): { inline: number[]; pooled: number[] } {
  const inline: number[] = []
  const pooled: number[] = []
  let budget = limits.budget
  sizes.forEach((size, index) => {
    if (size <= limits.maxInline && size <= budget) {
      budget -= size
      inline.push(index)
    } else {
      pooled.push(index)
    }
  })
  return { inline, pooled }
}
