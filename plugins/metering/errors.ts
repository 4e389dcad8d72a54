// Metering's error: a request whose worst case its budget cannot cover. It extends the core's
// GatewayError, so it is rendered like every other (status, spec text, code).
import { GatewayError } from '../../proxy/pipeline/errors.ts'

/** 402: the remaining monthly budget (the project's, or the key's own) cannot cover the request's hold. */
export class BudgetExceededError extends GatewayError {
  readonly status = 402
  readonly error = 'Budget exceeded'
  readonly code = 'budget_exceeded'
}
