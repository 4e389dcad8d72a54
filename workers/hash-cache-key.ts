// SHA-256 of a cache key's canonical encoding (plugins/cache/logic/cache-key.ts builds it). Run inline
// for ordinary bodies and in the worker pool for very large ones.
import { hash } from 'node:crypto'

export function hashCacheKey(canonical: string): string {
  return hash('sha256', canonical, 'base64url')
}
