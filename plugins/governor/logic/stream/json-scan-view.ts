// What the scanner reads of a tool call's arguments: the JSON text with each string's escape
// sequences resolved, so a value written right after one ("x\n4111…", "\u0020") is a token of
// its own, as the client that parses the arguments will see it; quotes, keys, numbers and
// punctuation are kept, so tokens stay apart. Findings in this view map back to the arguments as
// generated (or as a client sent them in its history), which redaction (redact-json.ts) and the
// records use. Text that is no JSON is scanned as it is.
import type { Finding } from '../../../../workers/scan-content.ts'
import type { Span } from './redact.ts'

export interface ScanView {
  readonly text: string
  /** The span of the arguments that view [start, end) stands for: whole escape sequences, whole surrogate pairs. */
  toRaw(start: number, end: number): Span
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }
const UNICODE_ESCAPE_LENGTH = 6
const SHORT_ESCAPE_LENGTH = 2

export function scanViewOf(json: string): ScanView {
  if (!json.includes('\\') || !isJson(json)) return plainView(json)
  // Each view code unit comes from one raw character or one escape sequence, in order, so the raw
  // text is cut into consecutive pieces: view unit i stands for raw [rawAt[i], rawAt[i + 1]).
  const rawAt = new Int32Array(json.length + 1)
  const parts: string[] = []
  let length = 0
  let copied = 0
  // In a valid JSON text a backslash only ever begins an escape sequence inside a string.
  for (let at = json.indexOf('\\'); at !== -1; at = json.indexOf('\\', copied)) {
    for (let raw = copied; raw < at; raw++) rawAt[length++] = raw
    parts.push(json.slice(copied, at))
    const isUnicode = json[at + 1] === 'u'
    parts.push(isUnicode ? String.fromCharCode(Number.parseInt(json.slice(at + 2, at + UNICODE_ESCAPE_LENGTH), 16)) : SHORT_ESCAPES[json[at + 1]!]!)
    rawAt[length++] = at
    copied = at + (isUnicode ? UNICODE_ESCAPE_LENGTH : SHORT_ESCAPE_LENGTH)
  }
  for (let raw = copied; raw < json.length; raw++) rawAt[length++] = raw
  parts.push(json.slice(copied))
  rawAt[length] = json.length
  const text = parts.join('')
  return {
    text,
    toRaw(start, end) {
      if (end <= start) return { start: rawAt[start]!, end: rawAt[start]! }
      // A surrogate pair written as two \u escapes is replaced whole or not at all.
      const from = isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1)) ? start - 1 : start
      const to = isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end)) ? end + 1 : end
      return { start: rawAt[from]!, end: rawAt[to]! }
    },
  }
}

/** A text read as it is: the view of text that is no JSON, or has no escape sequence. */
export function plainView(text: string): ScanView {
  return { text, toRaw: (start, end) => ({ start, end }) }
}

/** Findings in a view, with their offsets moved into the text it was made of. */
export function findingsInRaw(findings: readonly Finding[], view: ScanView): Finding[] {
  return findings.map((finding) => ({ ...finding, ...view.toRaw(finding.start, finding.end) }))
}

export function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
