import { z } from 'zod'

export const dashboardSchema = z.strictObject({
  /** Serve the dashboard at /dashboard (on the auth listener when AUTH_PORT is set). */
  enabled: z.boolean().default(true),
})
