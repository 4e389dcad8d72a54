// The figures a request is recorded with, and the most it may cost: an answer as the core priced
// it, what was generated without a complete answer at the serving model's plain rates, and the
// worst case a hold reserves before the model is asked.
import type { CompletionResult, ServedBy } from '../../../proxy/pipeline/completion.ts'
import type { ModelPrices } from '../../../proxy/pipeline/models.ts'
import { microsOfCents, microsOfDollars, priceOf } from '../../../proxy/pipeline/price.ts'

/** What one request is recorded with: who served it, its tokens and what it cost at list price. */
export interface Metered extends ServedBy {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly cachedInputTokens?: number | undefined
  readonly cacheWriteTokens?: number | undefined
  readonly costMicros: number
  readonly cacheHit: boolean
}

/** The prices of a model that may serve a request; an unpriced one has none that count. */
export interface PricedModel extends ModelPrices {
  readonly priced: boolean
}

/** An answer as the core priced it; its cost in cents carries whole micros. */
export function answered(result: CompletionResult): Metered {
  return {
    provider: result.provider,
    model: result.model,
    promptTokens: result.usage.promptTokens,
    completionTokens: result.usage.completionTokens,
    cachedInputTokens: result.cachedInputTokens,
    cacheWriteTokens: result.cacheWriteTokens,
    costMicros: microsOfCents(result.usage.costCents),
    cacheHit: result.cacheHit,
  }
}

/** What was generated without a complete answer, priced at the serving model's plain rates. */
export function generated({ provider, model }: ServedBy, prices: ModelPrices, promptTokens: number, completionTokens: number): Metered {
  const costMicros = Math.round(priceOf(prices, { promptTokens, completionTokens }))
  return { provider, model, promptTokens, completionTokens, costMicros, cacheHit: false }
}

/**
 * The most any of `models` can charge for a request: the prompt's bound and every token the answer
 * may hold. A model without a price holds `unpricedHoldDollars` instead.
 */
export function worstCaseMicros(
  models: readonly string[],
  pricesOf: (model: string) => PricedModel,
  promptTokensBound: number,
  maxTokens: number,
  unpricedHoldDollars: number,
): number {
  let worst = 0
  for (const model of models) {
    const prices = pricesOf(model)
    // Rounded up: a hold is never below what the request can cost.
    worst = Math.max(
      worst,
      prices.priced ? Math.ceil(priceOf(prices, { promptTokens: promptTokensBound, completionTokens: maxTokens })) : microsOfDollars(unpricedHoldDollars),
    )
  }
  return worst
}
