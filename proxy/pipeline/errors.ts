// The core's errors and the GatewayError every error the gateway answers with extends: `error`
// holds the spec's text, `message` explains, `code` is stable. An error only one plugin raises
// lives in that plugin (its errors.ts) and is rendered here like the others.

export interface ErrorBody {
  error: string
  message: string
  code: string
  [extra: string]: unknown
}

export abstract class GatewayError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
  }
  abstract readonly status: number
  abstract readonly error: string
  abstract readonly code: string
  headers(): Record<string, string> {
    return {}
  }
  /**
   * Whether the same request sent again may succeed, as the answer's `x-should-retry` tells the
   * SDKs (they read it before their own status rules): a timeout, a rate limit or a server failure.
   */
  clientMayRetry(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500
  }
  /** Extra body fields beside error/message/code (never internal detail). */
  extra(): Record<string, unknown> {
    return {}
  }
  toBody(): ErrorBody {
    return { error: this.error, message: this.message, code: this.code, ...this.extra() }
  }
}

export interface ValidationIssue {
  path: string
  message: string
}

export class InvalidRequestError extends GatewayError {
  readonly status = 400
  readonly error: string
  readonly code: string = 'invalid_request'
  readonly issues: readonly ValidationIssue[]
  constructor(error: string, message: string, issues: readonly ValidationIssue[] = []) {
    super(message)
    this.error = error
    this.issues = issues
  }
  override extra() {
    return this.issues.length > 0 ? { issues: this.issues } : {}
  }
}

export class PermissionError extends GatewayError {
  readonly status = 403
  readonly error = 'API key lacks required permissions'
  readonly code = 'insufficient_permissions'
}

export class NotFoundError extends GatewayError {
  readonly status = 404
  readonly error = 'Not found'
  readonly code = 'not_found'
}

export class MethodNotAllowedError extends GatewayError {
  readonly status = 405
  readonly error = 'Method not allowed'
  readonly code = 'method_not_allowed'
  readonly allow: readonly string[]
  constructor(allow: readonly string[]) {
    super(`Use ${allow.join(', ')} on this path.`)
    this.allow = allow
  }
  override headers() {
    return { allow: this.allow.join(', ') }
  }
}

export class PayloadTooLargeError extends GatewayError {
  readonly status = 413
  readonly error = 'Request body too large'
  readonly code = 'payload_too_large'
  constructor(limitBytes: number) {
    super(`The body exceeds the limit of ${limitBytes} bytes.`)
  }
}

export class UnsupportedMediaTypeError extends GatewayError {
  readonly status = 415
  readonly error = 'Unsupported media type'
  readonly code = 'unsupported_media_type'
  constructor() {
    super('Send the body as Content-Type: application/json.')
  }
}

/** An error the client may retry after `retryAfterS` seconds, said in the retry-after header. */
export abstract class RetryLaterError extends GatewayError {
  readonly retryAfterS: number
  constructor(retryAfterS: number, message: string, options?: ErrorOptions) {
    super(message, options)
    this.retryAfterS = retryAfterS
  }
  override headers() {
    return { 'retry-after': String(this.retryAfterS) }
  }
  override clientMayRetry() {
    return true
  }
}

export class InternalError extends GatewayError {
  readonly status = 500
  readonly error = 'Internal server error'
  readonly code = 'internal_error'
  constructor(message = 'The gateway failed to handle the request; it has been logged.', options?: ErrorOptions) {
    super(message, options)
  }
}

/** What a provider said of its own failure, in fields fit for a log line (never its message). */
export interface ProviderFailure {
  /** Its HTTP status; absent for an error reported inside a stream. */
  readonly status?: number
  /** Its error type and code, e.g. `invalid_request_error`, `context_length_exceeded`. */
  readonly type?: string
  readonly code?: string
  /** The request field it names, e.g. `messages`. */
  readonly param?: string
  /** How long it asked to be left alone (its `retry-after`). */
  readonly retryAfterMs?: number
}

/**
 * The provider failed or answered something unusable. `retryable` marks transient failures, which
 * the gateway retries. The message, shown to the client, may quote the provider and so the prompt:
 * logs scrub it.
 */
export class UpstreamError extends GatewayError {
  readonly status: number = 502
  readonly error: string = 'Upstream error'
  readonly code: string = 'upstream_error'
  readonly retryable: boolean
  readonly provider: ProviderFailure | undefined
  /** Set by the gateway's retry loop when it called the provider more than once for this request. */
  gatewayRetried = false
  constructor(message: string, retryable: boolean, options?: ErrorOptions & { readonly provider?: ProviderFailure }) {
    super(message, options)
    this.retryable = retryable
    this.provider = options?.provider
  }
  /** Only a transient failure the gateway has not retried itself: retries on both sides would multiply. */
  override clientMayRetry() {
    return this.retryable && !this.gatewayRetried
  }
}

export class UpstreamInvalidJsonError extends UpstreamError {
  override readonly error = 'Upstream returned invalid JSON'
  override readonly code = 'upstream_invalid_json'
  constructor() {
    super('The model was asked for JSON but its answer does not parse.', false)
  }
}

export class OverloadedError extends RetryLaterError {
  readonly status = 503
  readonly error = 'Service overloaded'
  readonly code = 'overloaded'
  constructor(message: string, retryAfterS = 1, options?: ErrorOptions) {
    super(retryAfterS, message, options)
  }
}

/** The gateway is stopping: it takes no new work, and work still running at the deadline is ended. */
export class ShuttingDownError extends RetryLaterError {
  readonly status = 503
  readonly error = 'Service unavailable'
  readonly code = 'shutting_down'
  constructor(message = 'The gateway is shutting down; retry shortly, another instance will answer.', retryAfterS = 1) {
    super(retryAfterS, message)
  }
}

/** Which shared store a request needed and could not reach. */
type SharedDependency = 'postgres' | 'redis'

/**
 * A shared store (PostgreSQL, Redis) the request needs cannot be reached. The request fails at
 * once instead of waiting, and never goes on without the limit or budget that store keeps.
 */
export class DependencyUnavailableError extends RetryLaterError {
  readonly status = 503
  readonly error = 'Service unavailable'
  readonly code = 'dependency_unavailable'
  readonly dependency: SharedDependency
  constructor(dependency: SharedDependency, retryAfterS = 1, options?: ErrorOptions) {
    super(retryAfterS, `The gateway cannot reach ${dependency === 'postgres' ? 'its PostgreSQL database' : 'its Redis server'}; retry shortly.`, options)
    this.dependency = dependency
  }
  override extra() {
    return { dependency: this.dependency }
  }
}

/** A provider the gateway holds no API key for, asked for by name (the pass-through): nothing to forward to. */
export class ProviderNotConfiguredError extends GatewayError {
  readonly status = 503
  readonly error = 'Service unavailable'
  readonly code = 'provider_not_configured'
}

export class UpstreamTimeoutError extends GatewayError {
  readonly status = 504
  readonly error = 'Upstream timeout'
  readonly code = 'upstream_timeout'
  readonly retryable = true
  /** As on UpstreamError. */
  gatewayRetried = false
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
  }
  override clientMayRetry() {
    return !this.gatewayRetried
  }
}

export class ConflictError extends GatewayError {
  readonly status = 409
  readonly error = 'Conflict'
  readonly code = 'conflict'
}

/** Anything thrown that is not a GatewayError becomes an InternalError; its detail stays in the log. */
export function toGatewayError(err: unknown): GatewayError {
  return err instanceof GatewayError ? err : new InternalError(undefined, { cause: err })
}
