// JSON Web Tokens: base64url header and payload that decode to JSON objects, and an optional
// signature. Decoding is what separates a token from any "eyJ…"-shaped string. Tokens that were
// base64-encoded once more (they start "ZXlK", the encoding of "eyJ") are decoded and checked too.
import type { Span } from './normalize.ts'

const JWT = /(?<![\w-])eyJ[A-Za-z0-9_\-]{5,4096}\.eyJ[A-Za-z0-9_\-]{5,16384}(?:\.[A-Za-z0-9_\-+/=]{0,4096})?/g
const JWT_AT_START = /^eyJ[A-Za-z0-9_\-]{5,4096}\.eyJ[A-Za-z0-9_\-]{5,16384}/
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

function isJwt(token: string): boolean {
  const [header = '', payload = ''] = token.split('.')
  return isJsonObject(header) && isJsonObject(payload)
}

function isJsonObject(segment: string): boolean {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
  } catch {
    return false
  }
}
