import { z } from 'zod'

export const authSchema = z.strictObject({
  /** Server secret that keys the API-key hashes; generated and kept in the store when absent. */
  secret: z.string().min(32, 'secret must hold at least 32 characters').optional(),
  /** `last used` is written at most this often per key, so busy keys cost no extra writes. */
  lastUsedIntervalMs: z.number().int().nonnegative().default(60_000),
  /** On an empty store, create a demo project with one sk_dev_ key and print it once. */
  demoOnFirstStart: z.boolean().default(true),
})
