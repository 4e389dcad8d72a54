// The router's configuration. Every object is strict and defaulted, so `routerSchema.parse({})`
// gives a working gateway that serves every model with the built-in local provider.
import { z } from 'zod'
import { modelNameSchema } from '../../proxy/pipeline/catalog.ts'
import type { ModelName, Quality } from '../../proxy/pipeline/models.ts'

const millis = z.int().positive()

/** How a deployment is reached: its provider's own API, another server speaking OpenAI's, or Azure OpenAI. */
const DEPLOYMENT_KINDS = ['native', 'openai-compatible', 'azure'] as const

const httpUrl = (what: string) => z.url({ protocol: /^https?$/, error: `${what} must be an http(s) URL` })

/** One place a provider's models are served from, with its own key; its name is its metrics label. */
const deploymentSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, 'name must be 1 to 64 letters, digits, ".", "_" or "-"'),
    kind: z.enum(DEPLOYMENT_KINDS).default('native'),
    /** Absent on a native deployment: the provider's baseUrl. Azure: the resource's endpoint, `https://NAME.openai.azure.com`. */
    baseUrl: httpUrl('baseUrl').optional(),
    /** Usually given as `apiKeyEnv`, the name of the environment variable that holds it. */
    apiKey: z.string({ error: 'apiKey is required: set apiKeyEnv to the environment variable that holds the key' }).min(1, 'apiKey must not be empty'),
    /** Its share of the provider's requests, relative to the other deployments' weights. */
    weight: z.number().positive().max(1_000_000).default(1),
    /** The models it serves; absent: all of the provider's (Azure: the models in azureDeployments). */
    models: z.array(modelNameSchema(false)).min(1).optional(),
    /** Azure: the API version in every URL, e.g. `2024-10-21`. */
    apiVersion: z.string().min(1).optional(),
    /** Azure: the Azure deployment that serves each model, e.g. `{ "gpt-4o": "prod-gpt4o" }`. */
    azureDeployments: z
      .record(modelNameSchema(false), z.string().regex(/^[\w.-]{1,64}$/, 'an Azure deployment name is letters, digits, ".", "_" or "-"'))
      .optional(),
  })
  .superRefine((deployment, ctx) => {
    const isAzure = deployment.kind === 'azure'
    if (deployment.kind !== 'native' && deployment.baseUrl === undefined)
      ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: `a ${deployment.kind} deployment needs its baseUrl` })
    if (isAzure && deployment.apiVersion === undefined)
      ctx.addIssue({ code: 'custom', path: ['apiVersion'], message: 'an azure deployment needs apiVersion, e.g. "2024-10-21"' })
    if (isAzure && Object.keys(deployment.azureDeployments ?? {}).length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['azureDeployments'],
        message: 'an azure deployment needs azureDeployments: the Azure deployment name of each model it serves',
      })
    if (isAzure && deployment.models !== undefined)
      ctx.addIssue({ code: 'custom', path: ['models'], message: 'an azure deployment serves the models its azureDeployments list; leave models out' })
    if (!isAzure && (deployment.apiVersion !== undefined || deployment.azureDeployments !== undefined))
      ctx.addIssue({ code: 'custom', path: ['kind'], message: 'apiVersion and azureDeployments belong to a deployment of kind azure' })
  })

export type DeploymentConfig = z.output<typeof deploymentSchema>

function providerSchema(defaultBaseUrl: string, foreignKinds: boolean) {
  return z
    .strictObject({
      /** May carry a path prefix (e.g. a corporate proxy); the API paths are appended to it. */
      baseUrl: httpUrl('baseUrl').default(defaultBaseUrl),
      /** One deployment at baseUrl. Without a key or deployments the provider's models are served by the local provider. */
      apiKey: z.string().min(1, 'apiKey must not be empty; leave it unset to serve with the local provider').optional(),
      /** Several deployments, requests spread among them by weight; instead of apiKey. */
      deployments: z.array(deploymentSchema).min(1, 'deployments must list at least one; leave it unset to serve with the local provider').optional(),
    })
    .superRefine((provider, ctx) => {
      if (provider.apiKey !== undefined && provider.deployments !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['deployments'], message: 'set either apiKey (one deployment at baseUrl) or deployments, not both' })
      }
      provider.deployments?.forEach((deployment, i) => {
        if (!foreignKinds && deployment.kind !== 'native')
          ctx.addIssue({
            code: 'custom',
            path: ['deployments', i, 'kind'],
            message: `only OpenAI's models are served by ${deployment.kind} deployments; this provider's are native`,
          })
      })
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
  providers: z
    .strictObject({
      openai: providerSchema('https://api.openai.com', true).prefault({}),
      anthropic: providerSchema('https://api.anthropic.com', false).prefault({}),
      mistral: providerSchema('https://api.mistral.ai', false).prefault({}),
    })
    .prefault({})
    .superRefine((providers, ctx) => {
      const seen = new Set<string>()
      for (const [provider, { deployments }] of Object.entries(providers)) {
        deployments?.forEach(({ name }, i) => {
          if (seen.has(name))
            ctx.addIssue({
              code: 'custom',
              path: [provider, 'deployments', i, 'name'],
              message: `deployment name ${name} is used twice; each names one deployment in the metrics`,
            })
          seen.add(name)
        })
      }
    }),
  /** How requests spread over a provider's deployments. */
  balancing: z
    .strictObject({
      /** How long a deployment that failed or answered 429 gets no requests, unless its retry-after says otherwise. */
      cooldownMs: millis.default(30_000),
      /** Seeds the weighted choice, for runs that must repeat; absent: a fresh choice every run. */
      seed: z.int().optional(),
    })
    .prefault({}),
  /** Per model the client names, the models tried in order once its deployments have all failed. */
  fallbacks: z.record(modelNameSchema(false), z.array(modelNameSchema(false)).min(1)).default({}),
  /** Refusals that a fallback may cure, besides failures: the prompt too long for the model, or its content policy. */
  fallbackOn: z
    .strictObject({
      contextLength: z.boolean().default(true),
      contentPolicy: z.boolean().default(true),
    })
    .prefault({}),
  timeouts: z
    .strictObject({
      connectMs: millis.default(5000),
      /** Until the provider's response headers arrive. */
      firstByteMs: millis.default(30_000),
      /** Longest silence between two chunks of a provider's answer. */
      idleMs: millis.default(60_000),
    })
    .prefault({}),
  retry: z
    .strictObject({
      /** Retries per model after its first try, for transient failures only. */
      attempts: z.int().min(0).max(10).default(2),
      baseDelayMs: z.int().min(0).default(200),
      maxDelayMs: z.int().min(0).default(2000),
    })
    .prefault({}),
  /** The model each quality tier routes to, any model of the table. */
  tiers: z
    .strictObject({
      cheap: modelNameSchema(false).default(SPEC_TIERS.cheap),
      balanced: modelNameSchema(false).default(SPEC_TIERS.balanced),
      frontier: modelNameSchema(false).default(SPEC_TIERS.frontier),
    })
    .prefault({}),
  /** The model tried per tier once the tier's model has failed transiently through all its retries. */
  fallback: z
    .strictObject({
      cheap: fallbackModel,
      balanced: fallbackModel,
      frontier: fallbackModel,
    })
    .prefault({}),
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
  local: z
    .strictObject({
      /** Pause between two streamed chunks of the local provider, to feel like a real model. */
      chunkDelayMs: z.int().min(0).default(25),
    })
    .prefault({}),
})

export type RouterConfig = z.output<typeof routerSchema>
