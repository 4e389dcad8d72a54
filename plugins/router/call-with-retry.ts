// The bounded attempt loop of a model call: each candidate (the chosen model, then its fallbacks)
// gets its retries with backoff, and only until a result or a first event is handed on.
import type { ProviderEvent, ProviderResult, ServingProvider } from '../../proxy/pipeline/completion.ts'
import type { UpstreamError, UpstreamTimeoutError } from '../../proxy/pipeline/errors.ts'
import { DeploymentsCoolingError } from './errors.ts'
import type { ModelInfo, ModelName } from '../../proxy/pipeline/models.ts'
import type { ProviderAdapter, ProviderRequest } from './providers/adapter.ts'
import { pause } from './pause.ts'
import { temperatureFor } from './logic/sampling.ts'
import { asksLongerWait, finalFailure, isTransient, retryDelayMs } from './logic/upstream-error.ts'

export interface Candidate {
  readonly provider: ServingProvider
  readonly model: ModelName
  /** The model's entry in the table in force. */
  readonly info: ModelInfo
  readonly adapter: ProviderAdapter
}

export interface RetryPolicy {
  /** Retries per candidate after its first try. */
  readonly attempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  /** A refusal that the next candidate may not meet (logic/fallbacks.ts): it moves on instead of failing. */
  readonly fallsBackOn?: ((err: unknown) => boolean) | undefined
}

/** Told about each failed try and about the candidate that finally serves. */
export interface CallObserver {
  onAttemptFailed(candidate: Candidate, attempt: number, error: UpstreamError | UpstreamTimeoutError): void
  onServed(candidate: Candidate): void
}

export type RequestShape = Omit<ProviderRequest, 'model'> & {
  /** The route's temperature when the client sent none: sent only to models that take one. */
  readonly defaultTemperature?: number | undefined
}

/** Exponential backoff with jitter in its upper half, so retries of many requests spread out. */
export function backoffMs(retry: number, policy: RetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry)
  return ceiling / 2 + Math.random() * (ceiling / 2)
}

type Attempt<T> = (candidate: Candidate, request: ProviderRequest, signal: AbortSignal) => Promise<T>

async function withRetry<T>(
  attemptOnce: Attempt<T>,
  candidates: readonly Candidate[],
  shape: RequestShape,
  policy: RetryPolicy,
  signal: AbortSignal,
  observer: CallObserver,
): Promise<T> {
  let lastError: unknown
  let calls = 0
  for (const candidate of candidates) {
    const request: ProviderRequest = {
      ...shape,
      model: candidate.model,
      temperature: temperatureFor(candidate.info, shape.temperature, shape.defaultTemperature),
    }
    for (let attempt = 0; attempt <= policy.attempts; attempt++) {
      if (attempt > 0) await pause(retryDelayMs(lastError, backoffMs(attempt - 1, policy)), signal)
      try {
        calls++
        const outcome = await attemptOnce(candidate, request, signal)
        observer.onServed(candidate)
        return outcome
      } catch (err) {
        if (signal.aborted) throw signal.reason
        // No deployment of this candidate can take it now, or the next one may take what it refused.
        if (err instanceof DeploymentsCoolingError || policy.fallsBackOn?.(err) === true) {
          lastError = err
          break
        }
        if (!isTransient(err)) throw finalFailure(err, calls)
        observer.onAttemptFailed(candidate, attempt, err)
        lastError = err
        if (asksLongerWait(err, policy.maxDelayMs)) break
      }
    }
  }
  throw finalFailure(lastError, calls)
}

const completeOnce: Attempt<ProviderResult> = (candidate, request, signal) => candidate.adapter.complete(request, signal)

/** A stream whose first batch (or its end) has arrived, and the events still to come. */
export interface OpenedStream {
  readonly first: IteratorResult<readonly ProviderEvent[]>
  readonly rest: AsyncIterator<readonly ProviderEvent[]>
}

interface OpenedAttempt extends OpenedStream {
  readonly candidate: Candidate
}

// A stream counts as open once its first batch (or its end) has arrived.
const openOnce: Attempt<OpenedAttempt> = async (candidate, request, signal) => {
  const rest = candidate.adapter.stream(request, signal)[Symbol.asyncIterator]()
  return { rest, first: await rest.next(), candidate }
}

export function completeWithRetry(
  candidates: readonly Candidate[],
  shape: RequestShape,
  policy: RetryPolicy,
  signal: AbortSignal,
  observer: CallObserver,
): Promise<ProviderResult> {
  return withRetry(completeOnce, candidates, shape, policy, signal, observer)
}

/**
 * Opens the stream, retrying as completeWithRetry does, up to its first batch; once that is out,
 * failures reach the caller as they are: a stream is never replayed. A fallback that serves is
 * announced first, with a `served` event.
 */
export async function openStreamWithRetry(
  candidates: readonly Candidate[],
  shape: RequestShape,
  policy: RetryPolicy,
  signal: AbortSignal,
  observer: CallObserver,
): Promise<OpenedStream> {
  const { rest, first, candidate } = await withRetry(openOnce, candidates, shape, policy, signal, observer)
  if (candidate === candidates[0]) return { first, rest }
  const served: ProviderEvent = { type: 'served', provider: candidate.provider, model: candidate.model }
  return { first: { done: false, value: first.done === true ? [served] : [served, ...first.value] }, rest }
}
