// What tells a retry from another request under the same key: the route, the key's test mode and
// the validated body (defaults applied, so an omitted default equals the same value sent), with
// object keys sorted so that field order does not matter.
import { createHash } from 'node:crypto'
import { canonicalJson } from '../../../proxy/kit/canonical-json.ts'

export function requestHash(route: string, testMode: boolean, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ route, testMode, body })).digest('base64url')
}
