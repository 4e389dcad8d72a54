import t from 'tap'
import { microsOfCents, microsOfDollars, priceOf } from '../../../proxy/pipeline/price.ts'

const prices = { inputPerMillion: 2, outputPerMillion: 8, cachedInputPerMillion: 1, cacheWritePerMillion: 2.5 }

t.test('a price per million tokens is micro-dollars per token', async (t) => {
  t.equal(priceOf(prices, { promptTokens: 1_000, completionTokens: 100 }), 2_800)
  t.equal(priceOf({ inputPerMillion: 0.15, outputPerMillion: 0.6 }, { promptTokens: 0, completionTokens: 0 }), 0)
})

t.test('cached input is a part of the prompt, priced at its own rates', async (t) => {
  t.equal(priceOf(prices, { promptTokens: 1_000, completionTokens: 0, cachedInputTokens: 500, cacheWriteTokens: 200 }), 300 * 2 + 500 * 1 + 200 * 2.5)
})

t.test('prices without cache rates charge cached input at the input rate', async (t) => {
  t.equal(priceOf({ inputPerMillion: 2, outputPerMillion: 0 }, { promptTokens: 1_000, completionTokens: 0, cachedInputTokens: 500 }), 2_000)
})

t.test('dollars and cents become whole micro-dollars', async (t) => {
  t.equal(microsOfDollars(0.0001), 100)
  t.equal(microsOfDollars(1.0000004), 1_000_000)
  t.equal(microsOfCents(0.0123), 123)
  t.equal(microsOfCents(0.00005), 1, 'half a micro rounds up')
})
