// The core routes' answers, as /openapi.json describes them: the spec's Completion result and
// Health result, and the probes' bodies.
import { z } from 'zod'

export const completionResultSchema = z.object({
  text: z.string().describe('The generated answer; in json mode a JSON document as a string.'),
  provider: z.string(),
  model: z.string(),
  cacheHit: z.boolean(),
  usage: z.object({
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    totalTokens: z.number().int(),
    costCents: z.number().describe('Cost in cents.'),
  }),
})

export const healthSchema = z.object({ status: z.literal('ok'), authenticated: z.literal(true), project_id: z.string() })

export const livenessSchema = z.object({ status: z.literal('ok') })

export const readinessSchema = z
  .looseObject({
    status: z.enum(['ready', 'degraded', 'not ready', 'draining']).describe('`ready` and `degraded` are answered with 200, the others with 503.'),
    notReady: z.array(z.string()).optional().describe('The parts without which nothing could be served, when away: `store`, `postgres`.'),
    degraded: z
      .array(z.string())
      .optional()
      .describe('The dependencies that are away and that the gateway serves around: `redis` (limited keys get 503, the cache misses).'),
    dependencies: z
      .strictObject({ postgres: z.enum(['up', 'down']).optional(), redis: z.enum(['up', 'down']).optional() })
      .optional()
      .describe('The shared stores this gateway is configured with, and whether each answers.'),
  })
  .describe("Also the plugins' facts, e.g. which providers are simulated.")

export const metricsSchema = z.string().describe('Prometheus text exposition format.')
