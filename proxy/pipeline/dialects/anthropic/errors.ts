// Errors on /v1/messages in Anthropic's shape, `{type: "error", error: {type, message}}`, with the
// gateway's status, so the SDK raises its typed errors (AuthenticationError, RateLimitError, …).
import type { ErrorShape } from '../../../http/error-shape.ts'
import { InvalidRequestError, type GatewayError } from '../../errors.ts'

function typeOf(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error'
    case 402:
      return 'billing_error'
    case 403:
      return 'permission_error'
    case 404:
      return 'not_found_error'
    case 413:
      return 'request_too_large'
    case 429:
      return 'rate_limit_error'
    case 503:
      return 'overloaded_error'
    case 504:
      return 'timeout_error'
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error'
  }
}

export function anthropicErrorBody(error: GatewayError) {
  const isValidation = error instanceof InvalidRequestError && error.issues.length > 0
  return {
    type: 'error',
    error: {
      type: typeOf(error.status),
      message: isValidation ? error.message : `${error.error}: ${error.message}`,
      code: error.code,
      ...error.extra(),
    },
  }
}

export const anthropicErrorShape: ErrorShape = {
  body: anthropicErrorBody,
  schema: {
    type: 'object',
    required: ['type', 'error'],
    properties: {
      type: { const: 'error' },
      error: { type: 'object', required: ['type', 'message'], properties: { type: { type: 'string' }, message: { type: 'string' }, code: { type: 'string' } } },
    },
  },
}
