// How the gateway treats a provider's failure. Which statuses are transient (the gateway retries
// them) and which are the provider's refusal of the request itself, which the client gets as the
// provider meant it; whether one more try of the same model is worth it, how long to wait for it;
// and what the client is told once the tries are over, so its SDK's retries never multiply the
// gateway's.
import { UpstreamError, UpstreamTimeoutError, type ProviderFailure } from '../../../proxy/pipeline/errors.ts'
import { ProviderAccountError, ProviderRefusalError } from '../errors.ts'

/** 408, 409, 429 and 5xx (Anthropic's 529 "overloaded" included), as the SDKs count them; no other 4xx. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500
}

/** Refusals of the request itself: the client's to see, with the provider's status. */
const REFUSAL_STATUSES = new Set([400, 404, 413, 422, 429])
/** Refusals of the gateway's own key or account: the client's key and request are not at fault. */
const ACCOUNT_STATUSES = new Set([401, 402, 403])
/** OpenAI's 429 for an account out of credit, which no wait cures. */
const ACCOUNT_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached'])

/** The error for a provider's non-2xx answer; `message` is already fit for the client. */
export function upstreamErrorOf(message: string, provider: ProviderFailure & { readonly status: number }): UpstreamError {
  const { status, type, code } = provider
  const isAccount = ACCOUNT_STATUSES.has(status) || ACCOUNT_CODES.has(code ?? '') || ACCOUNT_CODES.has(type ?? '')
  if (isAccount) return new ProviderAccountError(message, provider)
  if (REFUSAL_STATUSES.has(status)) return new ProviderRefusalError(message, provider)
  return new UpstreamError(message, isRetryableStatus(status), { provider })
}

/** Connect errors, resets, 408, 409, 429, 5xx and timeouts; never another 4xx, an abort or a bug. */
export function isTransient(err: unknown): err is UpstreamError | UpstreamTimeoutError {
  return (err instanceof UpstreamError && err.retryable) || err instanceof UpstreamTimeoutError
}

/**
 * The provider asked for a longer wait than the gateway's longest backoff: that wait is the
 * client's to make, as retry-after tells it, and the same model is not tried again meanwhile
 * (another candidate may serve).
 */
export function asksLongerWait(err: UpstreamError | UpstreamTimeoutError, maxDelayMs: number): boolean {
  const waitMs = err instanceof UpstreamError ? err.provider?.retryAfterMs : undefined
  return waitMs !== undefined && waitMs > maxDelayMs
}

/** The pause before a retry: the backoff, or as long as the provider asked if that is longer. */
export function retryDelayMs(err: unknown, backoffMs: number): number {
  const waitMs = err instanceof UpstreamError ? err.provider?.retryAfterMs : undefined
  return waitMs === undefined ? backoffMs : Math.max(backoffMs, waitMs)
}

/** The failure as the client gets it once the tries are over, after `calls` calls to providers. */
export function finalFailure(err: unknown, calls: number): unknown {
  if (calls > 1 && (err instanceof UpstreamError || err instanceof UpstreamTimeoutError)) err.gatewayRetried = true
  return err
}
