import { z } from 'zod'

const price = z.strictObject({
  inputPerMillion: z.number().min(0),
  outputPerMillion: z.number().min(0).default(0),
})

const dollars = z.number().min(0).max(1_000_000)

export const passthroughSchema = z.strictObject({
  /** Longest silence of the provider's connection, before its answer and between two of its chunks. */
  proxyTimeoutMs: z.int().positive().default(60_000),
  connectTimeoutMs: z.int().positive().default(5000),
  /** Sockets kept open per provider origin. */
  maxSockets: z.int().positive().default(128),
  /** The largest JSON answer parsed whole for its usage; past it, only its tail is searched. */
  scanLimitBytes: z
    .int()
    .positive()
    .default(1024 * 1024),
  /**
   * US dollars per million tokens of models outside the gateway's catalog (its chat models are
   * priced there). The defaults are the embedding models' list prices.
   */
  prices: z.record(z.string().min(1), price).default({
    'text-embedding-3-small': { inputPerMillion: 0.02, outputPerMillion: 0 },
    'text-embedding-3-large': { inputPerMillion: 0.13, outputPerMillion: 0 },
    'text-embedding-ada-002': { inputPerMillion: 0.1, outputPerMillion: 0 },
    'mistral-embed': { inputPerMillion: 0.1, outputPerMillion: 0 },
  }),
  /**
   * US dollars of the project's budget held while a request runs whose cost cannot be bounded from
   * it: it names no priced model, sets no output limit where output costs, or has no JSON body
   * (an upload, a GET, a DELETE). Charged what its answer reports, never more than this.
   */
  unboundedHoldDollars: dollars.default(1),
  /** The same for one provider's path and everything below it (`openai/v1/files`, `anthropic`); the longest match wins. */
  unboundedHoldByPath: z
    .record(
      z.string().regex(/^(?:openai|anthropic|mistral)(?:\/[^/\s]+)*$/, { error: 'a provider (openai, anthropic, mistral), then its path: openai/v1/files' }),
      dollars,
    )
    .default({}),
})
