// The router's configuration. Every object is strict and defaulted, so `routerSchema.parse({})`
// gives a working gateway that serves every model with the built-in local provider.
import { z } from 'zod'
import { modelNameSchema } from '../../proxy/catalog.ts'
import type { ModelName, Quality } from '../../proxy/models.ts'

const millis = z.int().positive()

function providerSchema(defaultBaseUrl: string) {
  return z.strictObject({
    /** May carry a path prefix (e.g. a corporate proxy); the API paths are appended to it. */
    baseUrl: z.url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' }).default(defaultBaseUrl),
    /** Without a key the provider's models are served by the local provider. */
    apiKey: z.string().min(1, 'apiKey must not be empty; leave it unset to serve with the local provider').optional(),
  })
}

const fallbackModel = modelNameSchema(false).optional()

/** The spec's quality tiers: the model each routes to unless the config points it elsewhere. */
export const SPEC_TIERS = {
  cheap: 'claude-3-haiku-20240307',
  balanced: 'gpt-4o-mini',
  frontier: 'gpt-4o',
} as const satisfies Record<Quality, ModelName>

export const routerSchema = z.strictObject({
  providers: z.strictObject({
    openai: providerSchema('https://api.openai.com').prefault({}),
    anthropic: providerSchema('https://api.anthropic.com').prefault({}),
    mistral: providerSchema('https://api.mistral.ai').prefault({}),
  }).prefault({}),
  timeouts: z.strictObject({
    connectMs: millis.default(5000),
    /** Until the provider's response headers arrive. */
    firstByteMs: millis.default(30_000),
    /** Longest silence between two chunks of a provider's answer. */
    idleMs: millis.default(60_000),
  }).prefault({}),
  retry: z.strictObject({
    /** Retries per model after its first try, for transient failures only. */
    attempts: z.int().min(0).max(10).default(2),
    baseDelayMs: z.int().min(0).default(200),
    maxDelayMs: z.int().min(0).default(2000),
  }).prefault({}),
  /** The model each quality tier routes to, any model of the table. */
  tiers: z.strictObject({
    cheap: modelNameSchema(false).default(SPEC_TIERS.cheap),
    balanced: modelNameSchema(false).default(SPEC_TIERS.balanced),
    frontier: modelNameSchema(false).default(SPEC_TIERS.frontier),
  }).prefault({}),
  /** The model tried per tier once the tier's model has failed transiently through all its retries. */
  fallback: z.strictObject({
    cheap: fallbackModel,
    balanced: fallbackModel,
    frontier: fallbackModel,
  }).prefault({}),
  /**
   * Sockets per provider origin, opened as needed. Above any number of streams one gateway holds
   * open: a pool of 128 queued every stream beyond the 128th before its first token.
   */
  connections: z.int().positive().default(4096),
  /**
   * Longest wait for the worker pool's count of a long prompt, queue included. Past it the request
   * gets a retryable 503: a verdict is never made on an estimate, so it does not depend on load.
   */
  countTimeoutMs: z.int().min(10).max(600_000).default(30_000),
  local: z.strictObject({
    /** Pause between two streamed chunks of the local provider, to feel like a real model. */
    chunkDelayMs: z.int().min(0).default(25),
  }).prefault({}),
})

export type RouterConfig = z.output<typeof routerSchema>
