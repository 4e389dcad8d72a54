// The provider API path a pass-through request names, checked so that it stays below the
// provider's base URL. Dot segments never get here (the request target is normalized before
// routing); what is left to refuse is what a server past the gateway might still read as a
// separator or a dot segment: encoded slashes, backslashes and dots, and empty segments.
import { InvalidRequestError } from '../../../proxy/pipeline/errors.ts'

// Percent escapes but of `.`, `/`, `\` and control characters.
const SEGMENT = /^(?:[\w\-~!$&'()*+,;=:@.]|%(?!2[eEfF]|5[cC]|[01][0-9a-fA-F]|7[fF])[0-9a-fA-F]{2})+$/

/** `/v1/embeddings` from the route's rest `v1/embeddings`, or the 400 saying why not. */
export function apiPathOf(rest: string): string | InvalidRequestError {
  const segments = rest.split('/')
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || !SEGMENT.test(segment)) {
      return new InvalidRequestError('Invalid request: path', 'The provider path may not hold empty or dot segments, or encoded slashes, backslashes or dots.')
    }
  }
  return `/${rest}`
}
