import { z } from 'zod'

export const meteringSchema = z.strictObject({
  /** Refuse requests whose worst-case cost does not fit the remaining monthly budget. */
  enforceBudgets: z.boolean().default(true),
})
