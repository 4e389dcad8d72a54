// Errors on /v1/* in OpenAI's shape, `{error: {message, type, code, param}}`, with the gateway's
// status, so the SDKs raise their typed errors (AuthenticationError, RateLimitError, …).
import type { ErrorShape } from '../../../http/error-shape.ts'
import { InvalidRequestError, UpstreamError, type GatewayError } from '../../errors.ts'

function typeOf(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error'
    case 402:
      return 'insufficient_quota'
    case 403:
      return 'permission_error'
    case 404:
      return 'not_found_error'
    case 429:
      return 'rate_limit_error'
    default:
      return status >= 500 ? 'server_error' : 'invalid_request_error'
  }
}

export function openAiErrorBody(error: GatewayError) {
  const issues = error instanceof InvalidRequestError ? error.issues : []
  return {
    error: {
      // A validation error's message already names every problem; others add the spec's text in front.
      message: issues.length > 0 ? error.message : `${error.error}: ${error.message}`,
      type: typeOf(error.status),
      code: error.code,
      // The field a validation issue or the provider's refusal names.
      param: issues[0]?.path || (error instanceof UpstreamError ? error.provider?.param : undefined) || null,
      ...error.extra(),
    },
  }
}

export const openAiErrorShape: ErrorShape = {
  body: openAiErrorBody,
  schema: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'code', 'param'],
        properties: { message: { type: 'string' }, type: { type: 'string' }, code: { type: 'string' }, param: { type: ['string', 'null'] } },
      },
    },
  },
}
