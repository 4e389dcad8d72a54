// A provider served by several deployments, as one adapter: each call goes to a deployment that
// serves the model and is not resting, chosen by weight; one that fails transiently or answers 429
// rests for its retry-after, or the configured cooldown, and one whose key or account the
// provider refuses (a revoked key, an account out of credit) rests for ACCOUNT_REST_MS. The attempt
// loop (call-with-retry.ts) retries as before, and a retry lands on another deployment while the
// failed one rests.
import type { ProviderEvent } from '../../proxy/pipeline/completion.ts'
import { UpstreamError } from '../../proxy/pipeline/errors.ts'
import { DeploymentsCoolingError, ProviderAccountError } from './errors.ts'
import type { Random } from '../../proxy/kit/seeded-random.ts'
import type { ModelName } from '../../proxy/pipeline/models.ts'
import { isTransient } from './logic/upstream-error.ts'
import type { Cooldowns } from './cooldowns.ts'
import type { DeploymentMetrics } from './deployment-metrics.ts'
import type { EmbeddingRequest, ProviderAdapter, ProviderRequest } from './providers/adapter.ts'

export interface Deployment {
  readonly name: string
  readonly weight: number
  readonly adapter: ProviderAdapter
  /** The models it serves; undefined: all of its provider's. */
  readonly models: ReadonlySet<ModelName> | undefined
  readonly metrics: DeploymentMetrics
}

/**
 * How long a deployment whose key or account was refused rests: no wait of seconds cures that, and
 * until it rests every request sent there would fail. Then it is tried again, in case its key was
 * put right.
 */
export const ACCOUNT_REST_MS = 5 * 60_000

interface Balancing {
  readonly cooldowns: Cooldowns
  readonly cooldownMs: number
  readonly random: Random
}

export function createBalancedAdapter(provider: string, deployments: readonly Deployment[], balancing: Balancing): ProviderAdapter {
  const { cooldowns, random } = balancing
  // A lone deployment is never rested: nothing could take its requests meanwhile, so its failures
  // are retried as they come.
  const rests = deployments.length > 1
  const servingOf = new Map<ModelName, readonly Deployment[]>()
  const serving = (model: ModelName): readonly Deployment[] => {
    let found = servingOf.get(model)
    if (found === undefined) servingOf.set(model, (found = deployments.filter((d) => d.models === undefined || d.models.has(model))))
    return found
  }

  /** `embeds`: only among deployments with an embeddings API. */
  const pick = (model: ModelName, embeds = false): Deployment => {
    const candidates = embeds ? serving(model).filter((d) => d.adapter.embed !== undefined) : serving(model)
    if (candidates.length === 0) throw new UpstreamError(`No ${provider} deployment serves ${model}.`, false)
    const ready = rests ? candidates.filter((d) => !cooldowns.isCooling(d.name)) : candidates
    if (ready.length === 0) throw new DeploymentsCoolingError(provider, Math.ceil(cooldowns.readyInMs(candidates.map((d) => d.name)) / 1000))
    if (ready.length === 1) return ready[0]!
    let total = 0
    for (const d of ready) total += d.weight
    let point = random() * total
    for (const d of ready) {
      point -= d.weight
      if (point < 0) return d
    }
    return ready[ready.length - 1]!
  }

  /**
   * Rests a deployment that failed transiently, and says what to throw: the retry-after a rested
   * deployment asked for is its own, so while another can serve the model the retry need not wait
   * for it (nor give up on the model).
   */
  const failed = (deployment: Deployment, model: ModelName, err: unknown, signal: AbortSignal): unknown => {
    if (signal.aborted) return err
    deployment.metrics.errors.inc()
    if (!rests) return err
    if (err instanceof ProviderAccountError) return accountRefused(deployment, model, err)
    if (!isTransient(err)) return err
    const retryAfterMs = err instanceof UpstreamError ? err.provider?.retryAfterMs : undefined
    const ms = retryAfterMs ?? balancing.cooldownMs
    if (ms <= 0) return err
    cooldowns.coolDown(deployment.name, ms)
    deployment.metrics.cooldowns.inc()
    if (retryAfterMs === undefined || !(err instanceof UpstreamError) || !serving(model).some((d) => !cooldowns.isCooling(d.name))) return err
    const { retryAfterMs: _own, ...provider } = err.provider!
    return new UpstreamError(err.message, true, { cause: err, provider })
  }

  /**
   * Rests a deployment whose key or account was refused. While another deployment can serve the
   * model, the request is retried there (its key is its own); the last one's refusal is the client's.
   */
  const accountRefused = (deployment: Deployment, model: ModelName, err: ProviderAccountError): unknown => {
    cooldowns.coolDown(deployment.name, ACCOUNT_REST_MS)
    deployment.metrics.cooldowns.inc()
    if (!serving(model).some((d) => !cooldowns.isCooling(d.name))) return err
    return new UpstreamError(err.message, true, { cause: err, ...(err.provider !== undefined && { provider: err.provider }) })
  }

  return {
    target: deployments.length === 1 ? deployments[0]!.adapter.target : deployments.map((d) => `${d.name}: ${d.adapter.target}`).join(', '),
    async complete(request: ProviderRequest, signal: AbortSignal) {
      const deployment = pick(request.model)
      deployment.metrics.requests.inc()
      try {
        return await deployment.adapter.complete(request, signal)
      } catch (err) {
        throw failed(deployment, request.model, err, signal)
      }
    },
    ...(deployments.some((d) => d.adapter.embed !== undefined) && {
      async embed(request: EmbeddingRequest, signal: AbortSignal) {
        const deployment = pick(request.model, true)
        deployment.metrics.requests.inc()
        try {
          return await deployment.adapter.embed!(request, signal)
        } catch (err) {
          throw failed(deployment, request.model, err, signal)
        }
      },
    }),
    stream(request: ProviderRequest, signal: AbortSignal) {
      const deployment = pick(request.model)
      deployment.metrics.requests.inc()
      const events = deployment.adapter.stream(request, signal)[Symbol.asyncIterator]()
      return new OpeningWatched(events, (err) => failed(deployment, request.model, err, signal))
    },
  }
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

/** A provider stream whose opening (its first read) reports a failure; later reads are the stream's own. */
class OpeningWatched implements AsyncIterableIterator<readonly ProviderEvent[]> {
  readonly #events: AsyncIterator<readonly ProviderEvent[]>
  /** Says what to throw for a failure to open. */
  readonly #onFailure: (err: unknown) => unknown
  #isOpen = false

  constructor(events: AsyncIterator<readonly ProviderEvent[]>, onFailure: (err: unknown) => unknown) {
    this.#events = events
    this.#onFailure = onFailure
  }

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<readonly ProviderEvent[], undefined>> {
    if (this.#isOpen) return this.#events.next()
    this.#isOpen = true
    return this.#events.next().catch((err: unknown) => {
      throw this.#onFailure(err)
    })
  }

  async return(): Promise<IteratorReturnResult<undefined>> {
    await this.#events.return?.()
    return DONE
  }
}
