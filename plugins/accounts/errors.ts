// The account endpoints' errors (the spec's second table): `error` is the status's name. They extend
// the core's GatewayError, so they are rendered like every other.
import { GatewayError, RetryLaterError } from '../../proxy/pipeline/errors.ts'

export class UnauthorizedError extends GatewayError {
  readonly status = 401
  readonly error = 'Unauthorized'
  readonly code = 'unauthorized'
}

export class ForbiddenError extends GatewayError {
  readonly status = 403
  readonly error = 'Forbidden'
  readonly code = 'forbidden'
}

export class TooManyRequestsError extends RetryLaterError {
  readonly status = 429
  readonly error = 'Too Many Requests'
  readonly code = 'too_many_requests'
  constructor(retryAfterS: number, message = `Too many attempts; retry in ${retryAfterS}s.`) {
    super(retryAfterS, message)
  }
  override extra() {
    return { retry_after: this.retryAfterS }
  }
}
