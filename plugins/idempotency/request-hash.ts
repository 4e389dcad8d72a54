// What tells a retry from another request under the same key: the route, the key's test mode and
// the validated body (defaults applied, so an omitted default equals the same value sent), with
// object keys sorted so that field order does not matter.
import { createHash } from 'node:crypto'

export function requestHash(route: string, testMode: boolean, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ route, testMode, body })).digest('base64url')
}

/** JSON with every object's keys in sorted order; undefined members are left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const members = Object.keys(value).sort()
      .filter((name) => (value as Record<string, unknown>)[name] !== undefined)
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`)
    return `{${members.join(',')}}`
  }
  return JSON.stringify(value)
}
