// Text hidden by encoding: runs of base64 (standard or URL-safe) or hex that decode to readable
// text are decoded so that the detectors can scan what they say (an e-mail address, a phone
// number, an instruction), and findings are mapped back to the encoded characters that carry
// them. Bounded: runs of 16 to 8192 characters, at most 64 runs and 8192 decoded characters per
// scan, and one level deep (decoded text is not decoded again). Binary (keys, hashes, images)
// fails the readability test and is dropped after decoding.
import type { Span } from './normalize.ts'

interface DecodedRun {
  /** The decoded text. */
  readonly text: string
  /** The encoded characters [start, end) of the scanned text that produce decoded [start, end). */
  toEncoded(start: number, end: number): Span
}

const MIN_RUN = 16
const MAX_RUN = 8192
const MAX_RUNS = 64
const MAX_DECODED_CHARS = 8192
const MIN_DECODED_CHARS = 8
// Decoded text counts as readable when every character is printable (tabs and line breaks
// allowed) and most are letters, digits or spaces.
const MIN_WORDLIKE_SHARE = 0.6

const RUN = new RegExp(`(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{${MIN_RUN},}={0,2}(?![A-Za-z0-9+/_=-])`, 'g')
const HEX = /^(?:[0-9a-f]{2})+$|^(?:[0-9A-F]{2})+$/
const UNREADABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]/
const WORDLIKE = /[\p{L}\p{N}\s]/gu

export function findEncodedRuns(text: string): DecodedRun[] {
  const runs: DecodedRun[] = []
  let budget = MAX_DECODED_CHARS
  let tried = 0
  for (const m of text.matchAll(RUN)) {
    if (tried >= MAX_RUNS || budget < MIN_DECODED_CHARS) break
    const encoded = m[0]
    if (encoded.length > MAX_RUN || !looksEncoded(encoded)) continue
    tried++
    const decoded = decodeHex(encoded, m.index) ?? decodeBase64(encoded, m.index)
    if (decoded === undefined || decoded.text.length > budget) continue
    budget -= decoded.text.length
    runs.push(decoded)
  }
  return runs
}

/** A digit and a letter, or both cases: plain words and identifiers in lower case are not encodings. */
function looksEncoded(run: string): boolean {
  const hasDigit = /\d/.test(run)
  const hasUpper = /[A-Z]/.test(run)
  const hasLower = /[a-z]/.test(run)
  return (hasDigit && (hasUpper || hasLower)) || (hasUpper && hasLower)
}

function decodeHex(run: string, at: number): DecodedRun | undefined {
  if (!HEX.test(run)) return undefined
  return readable(
    Buffer.from(run, 'hex'),
    at,
    (byte) => byte * 2,
    (byte) => byte * 2,
  )
}

function decodeBase64(run: string, at: number): DecodedRun | undefined {
  const body = run.replace(/=+$/, '')
  if (body.length % 4 === 1) return undefined
  const urlSafe = /[-_]/.test(body)
  if (urlSafe && /[+/]/.test(body)) return undefined
  const bytes = Buffer.from(body, urlSafe ? 'base64url' : 'base64')
  // Four characters carry three bytes: byte b sits in characters 4·⌊b/3⌋ … 4·⌊b/3⌋+3.
  return readable(
    bytes,
    at,
    (byte) => Math.floor(byte / 3) * 4,
    (byte) => Math.min(run.length, Math.ceil(byte / 3) * 4),
  )
}

function readable(bytes: Buffer, at: number, startChar: (byte: number) => number, endChar: (byte: number) => number): DecodedRun | undefined {
  const text = bytes.toString('utf8')
  if (text.length < MIN_DECODED_CHARS || UNREADABLE.test(text)) return undefined
  if ((text.match(WORDLIKE)?.length ?? 0) < text.length * MIN_WORDLIKE_SHARE) return undefined
  const byteAt = byteOffsets(text)
  return {
    text,
    toEncoded(start, end) {
      return { start: at + startChar(byteAt(start)), end: at + endChar(byteAt(end)) }
    },
  }
}

/** Maps a UTF-16 index of the decoded text to its UTF-8 byte offset. */
function byteOffsets(text: string): (index: number) => number {
  if (!/[^\x00-\x7f]/.test(text)) return (index) => index
  const offsets = new Int32Array(text.length + 1)
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    offsets[i] = bytes
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4
      offsets[i + 1] = bytes
      i++
    } else bytes += 3
  }
  offsets[text.length] = bytes
  return (index) => offsets[index] as number
}
