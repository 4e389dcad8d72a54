// The auth plugin's refusals: no key, or a key that is not (or no longer) valid. They extend the
// core's GatewayError, so they are rendered like every other (status, spec text, code).
import { GatewayError } from '../../proxy/pipeline/errors.ts'

export class MissingKeyError extends GatewayError {
  readonly status = 401
  readonly error = 'Missing API key'
  readonly code = 'missing_api_key'
  constructor() {
    super('Send the key in the X-API-Key header (or Authorization: Bearer).')
  }
}

export class InvalidKeyError extends GatewayError {
  readonly status = 401
  readonly error = 'Invalid or inactive API key'
  readonly code = 'invalid_api_key'
  constructor() {
    super('The API key is unknown, deleted or deactivated.')
  }
}
