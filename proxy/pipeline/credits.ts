// The credits a request cost and what is left of its project's budget, as the answer reports them
// (headers, the spec's done event). Credits are dollars (DESIGN.md).
import type { CompletionResult } from './completion.ts'
import type { RequestContext } from './context.ts'

interface Credits {
  readonly charged: number
  /** Undefined when no budget was metered for the request. */
  readonly remaining: number | undefined
}

/** Metering's charge when it settled one; otherwise the answer's own cost (nothing on a cache hit). */
export function creditsOf(ctx: RequestContext, result: CompletionResult): Credits {
  const charge = ctx.charge
  return {
    charged: charge?.chargedDollars ?? result.usage.costCents / 100,
    remaining: charge?.remainingDollars,
  }
}

/** Dollars with six decimal places, as the x-credits-* headers carry them. */
export function dollars(value: number): string {
  return value.toFixed(6)
}

export function roundDollars(value: number): number {
  return Math.round(value * 1e6) / 1e6
}
