// The router's errors: a provider's own refusal of the request or of the gateway's account, and no
// deployment free to serve. They extend the core's UpstreamError and RetryLaterError, so they are
// rendered like every other.
import { RetryLaterError, UpstreamError, type ProviderFailure } from '../../proxy/pipeline/errors.ts'

const REFUSAL_TEXTS: Readonly<Record<number, string>> = {
  400: 'Invalid request',
  404: 'Not found',
  413: 'Request body too large',
  422: 'Invalid request',
  429: 'Rate limit exceeded',
}

/**
 * The provider refused the request itself (400, 404, 413, 422, 429): the client gets the provider's
 * status, its error code, and on a 429 its retry-after, as if it had called the provider.
 */
export class ProviderRefusalError extends UpstreamError {
  override readonly status: number
  override readonly error: string
  override readonly code: string
  constructor(message: string, provider: ProviderFailure & { readonly status: number }) {
    // Only a rate limit passes; the gateway retries it when the provider asks for a short wait.
    super(message, provider.status === 429, { provider })
    this.status = provider.status
    this.error = REFUSAL_TEXTS[provider.status] ?? 'Invalid request'
    this.code = provider.code ?? (provider.status === 429 ? 'upstream_rate_limited' : 'upstream_refused')
  }
  override headers(): Record<string, string> {
    const waitMs = this.provider?.retryAfterMs
    if (this.status !== 429 || waitMs === undefined) return {}
    return { 'retry-after': String(Math.ceil(waitMs / 1000)), 'retry-after-ms': String(waitMs) }
  }
}

/**
 * The provider refused the gateway's own key or account (401, 403, an unpaid bill): a fault of the
 * gateway's configuration, not of the client's key or request, so a 502 that no retry cures.
 */
export class ProviderAccountError extends UpstreamError {
  override readonly code = 'upstream_account_refused'
  constructor(message: string, provider: ProviderFailure) {
    super(message, false, { provider })
  }
}

/** Every deployment that serves the model is cooling down after failures or 429s, and no fallback served. */
export class DeploymentsCoolingError extends RetryLaterError {
  readonly status = 503
  readonly error = 'Service unavailable'
  readonly code = 'upstream_cooling'
  constructor(provider: string, retryAfterS: number) {
    super(retryAfterS, `Every ${provider} deployment for this model is cooling down after failures; retry in ${retryAfterS}s.`)
  }
}
