// The answers to an Idempotency-Key the gateway cannot honour: a malformed key, a key reused for
// another request, a key whose first request is still being answered.
import { GatewayError, InvalidRequestError, RetryLaterError } from '../../proxy/pipeline/errors.ts'

/** A malformed Idempotency-Key header. */
export class InvalidIdempotencyKeyError extends InvalidRequestError {
  override readonly code = 'invalid_idempotency_key'
  constructor(message: string) {
    super(`Invalid request: ${message}`, message)
  }
}

/** An Idempotency-Key used within its 24 hours for another request (another body or endpoint). */
export class IdempotencyKeyReusedError extends GatewayError {
  readonly status = 409
  readonly error = 'Conflict'
  readonly code = 'idempotency_key_reused'
  constructor() {
    super('This Idempotency-Key was used in the last 24 hours with a different request (another body or endpoint). Send a new key for a new request.')
  }
}

/** The request first sent with this Idempotency-Key is still being answered. */
export class IdempotencyKeyInUseError extends RetryLaterError {
  readonly status = 409
  readonly error = 'Conflict'
  readonly code = 'idempotency_key_in_use'
  constructor(retryAfterS = 1) {
    super(retryAfterS, 'A request with this Idempotency-Key is still being answered. Retry once it has finished to receive its answer.')
  }
}
