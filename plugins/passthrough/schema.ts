import { z } from 'zod'

const price = z.strictObject({
  inputPerMillion: z.number().min(0),
  outputPerMillion: z.number().min(0).default(0),
})

export const passthroughSchema = z.strictObject({
  /** Longest silence of the provider's connection, before its answer and between two of its chunks. */
  proxyTimeoutMs: z.int().positive().default(60_000),
  connectTimeoutMs: z.int().positive().default(5000),
  /** Sockets kept open per provider origin. */
  maxSockets: z.int().positive().default(128),
  /** The largest JSON answer parsed whole for its usage; past it, only its tail is searched. */
  scanLimitBytes: z.int().positive().default(1024 * 1024),
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
})

export type PassthroughConfig = z.output<typeof passthroughSchema>
