// The Idempotency-Key header (Stripe's bound): 1 to 255 printable ASCII characters. Pure: no
// context, no store.

export const MAX_KEY_LENGTH = 255

export type ParsedKey = { readonly ok: true; readonly key: string } | { readonly ok: false; readonly message: string }

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

/** undefined when the header is absent: the request is not idempotent. */
export function parseIdempotencyKey(value: string | readonly string[] | undefined): ParsedKey | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') return { ok: false, message: 'Send a single Idempotency-Key header.' }
  if (value.length === 0 || value.length > MAX_KEY_LENGTH || !PRINTABLE_ASCII.test(value)) {
    return { ok: false, message: `Idempotency-Key must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters.` }
  }
  return { ok: true, key: value }
}
