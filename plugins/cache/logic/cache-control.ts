// What a request's Cache-Control header allows: `no-cache` asks for a fresh answer (which is still
// stored for later requests), `no-store` keeps the answer out of the cache altogether.

export interface CachePolicy {
  /** The answer may come from the cache. */
  readonly serve: boolean
  /** The fresh answer may be stored. */
  readonly store: boolean
}

export const USE_CACHE: CachePolicy = { serve: true, store: true }
const REFRESH: CachePolicy = { serve: false, store: true }
const NO_STORE: CachePolicy = { serve: false, store: false }

export function cachePolicyOf(header: string | undefined): CachePolicy {
  if (header === undefined) return USE_CACHE
  // The headers clients send, told apart without splitting them.
  if (header === 'no-cache') return REFRESH
  if (header === 'no-store') return NO_STORE
  let policy = USE_CACHE
  for (const part of header.split(',')) {
    const directive = part.split('=', 1)[0]!.trim().toLowerCase()
    if (directive === 'no-store') return NO_STORE
    if (directive === 'no-cache') policy = REFRESH
  }
  return policy
}
