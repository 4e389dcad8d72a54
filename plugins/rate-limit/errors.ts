// The rate limiter's refusal. It extends the core's RetryLaterError, so it is rendered like every
// other, with its retry-after.
import { RetryLaterError } from '../../proxy/pipeline/errors.ts'

export class RateLimitedError extends RetryLaterError {
  readonly status = 429
  readonly error = 'Rate limit exceeded'
  readonly code = 'rate_limited'
  constructor(retryAfterS: number, message = `Retry in ${retryAfterS}s.`) {
    super(retryAfterS, message)
  }
}
