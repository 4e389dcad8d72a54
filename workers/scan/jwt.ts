// JSON Web Tokens: a base64url header and payload and an optional signature. Decoding is what
// separates a token from any "eyJ…"-shaped string: the payload must decode to a JSON object, and
// so must the header, except that a signed token (three segments, a signature of 16 or more
// characters) may carry a damaged header as long as it still reads as a JSON object's text: it
// starts '{"', ends '}', and at least 80% of it is printable. A copy-paste error in the header
// does not make the claims and signature any less of a credential, while a string that only
// starts with "eyJ" decodes to bytes that are mostly unprintable. Tokens that were base64-encoded
// once more (they start "ZXlK", the encoding of "eyJ") are decoded and checked too.
import type { Span } from './normalize.ts'

const JWT = /(?<![\w-])eyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,16384}(?:\.[A-Za-z0-9_\-+/=]{0,4096})?/g
const JWT_AT_START = /^eyJ[A-Za-z0-9_-]{5,4096}\.eyJ[A-Za-z0-9_-]{5,16384}/
const ENCODED_JWT = /(?<![\w+/])ZXlK[A-Za-z0-9+/]{40,16384}={0,2}/g

export function findJwts(text: string): Span[] {
  const found: Span[] = []
  for (const m of text.matchAll(JWT)) {
    if (isJwt(m[0])) found.push({ start: m.index, end: m.index + m[0].length })
  }
  for (const m of text.matchAll(ENCODED_JWT)) {
    const inner = JWT_AT_START.exec(Buffer.from(m[0], 'base64').toString('latin1'))
    if (inner !== null && isJwt(inner[0])) found.push({ start: m.index, end: m.index + m[0].length })
  }
  return found
}

const MIN_SIGNATURE = 16
const PRINTABLE_SHARE = 0.8

function isJwt(token: string): boolean {
  const [header = '', payload = '', signature] = token.split('.')
  if (!isJsonObject(payload)) return false
  if (isJsonObject(header)) return true
  return signature !== undefined && signature.length >= MIN_SIGNATURE && readsAsJsonObject(header)
}

function readsAsJsonObject(segment: string): boolean {
  const bytes = Buffer.from(segment, 'base64url')
  if (bytes.length < 8 || bytes[0] !== 0x7b || bytes[1] !== 0x22 || bytes[bytes.length - 1] !== 0x7d) return false
  let printable = 0
  for (const byte of bytes) if (byte >= 0x20 && byte < 0x7f) printable++
  return printable / bytes.length >= PRINTABLE_SHARE
}

function isJsonObject(segment: string): boolean {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}
