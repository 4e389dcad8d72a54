// Money at list price, written once: what tokens cost at a model's prices per million tokens, and
// amounts in dollars or cents as the integer micro-dollars the ledger keeps. The answer's cost, a
// budget hold, a cut stream's charge and a forwarded request's price are all reckoned here.

/** A model's prices per million tokens; the prompt cache's rates where the provider has them. */
export interface TokenPrices {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
  /** Input tokens read from the provider's prompt cache; the input rate when absent. */
  readonly cachedInputPerMillion?: number
  /** Input tokens written to the provider's prompt cache; the input rate when absent. */
  readonly cacheWritePerMillion?: number
}

/**
 * Tokens as the gateway meters them. `promptTokens` is every input token; the cached ones are a
 * part of it, priced at their own rates.
 */
export interface MeteredTokens {
  readonly promptTokens: number
  readonly completionTokens: number
  /** Of promptTokens, read from the provider's prompt cache. */
  readonly cachedInputTokens?: number | undefined
  /** Of promptTokens, written to the provider's prompt cache. */
  readonly cacheWriteTokens?: number | undefined
}

/**
 * What the tokens cost at the prices, in micro-dollars, not rounded: a price per million tokens
 * is a price in micro-dollars per token. Callers round as their figure needs (a hold up, a charge
 * to the nearest micro).
 */
export function priceOf(prices: TokenPrices, tokens: MeteredTokens): number {
  const cached = tokens.cachedInputTokens ?? 0
  const written = tokens.cacheWriteTokens ?? 0
  const fresh = Math.max(0, tokens.promptTokens - cached - written)
  return (
    fresh * prices.inputPerMillion +
    cached * (prices.cachedInputPerMillion ?? prices.inputPerMillion) +
    written * (prices.cacheWritePerMillion ?? prices.inputPerMillion) +
    tokens.completionTokens * prices.outputPerMillion
  )
}

/** An amount in dollars, in whole micro-dollars. */
export function microsOfDollars(dollars: number): number {
  return Math.round(dollars * 1e6)
}

/** An amount in cents, in whole micro-dollars (an answer's costCents carries whole micros). */
export function microsOfCents(cents: number): number {
  return Math.round(cents * 1e4)
}
