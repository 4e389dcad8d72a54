// Redaction of a tool call's arguments: a JSON text the model generated, which the client parses.
// A value lying within one JSON string's characters is replaced there by [REDACTED:TYPE], which
// needs no escaping. A finding that does not (it crosses a quote, cuts an escape sequence, or
// touches a number or several strings) has each string it touches replaced whole, and each
// number, true, false or null it touches replaced by the string "[REDACTED:TYPE]": the arguments
// still parse whatever the findings' spans. Arguments that are not JSON are redacted as text.
import type { EntityType, Finding } from '../../../../workers/scan-content.ts'
import { isJson } from './json-scan-view.ts'
import { moreSensitive, placeholder, redact, redactionGroups, type Group, type Redacted, type Span } from './redact.ts'

/** A string (quotes included) or another value written without quotes, in a JSON text. */
interface Token extends Span {
  readonly kind: 'string' | 'bare'
  /** A string's escape sequences (\n, \", \u00e9). */
  readonly escapes: readonly Span[]
}

/** What a token gets: its findings within its characters, or a replacement whole. */
interface Hit {
  type: EntityType
  whole: boolean
  readonly within: Group[]
}

interface Replacement extends Span {
  readonly text: string
}

const BARE_CHAR = /[-+.\w]/

/** `text` with every redacted type's finding replaced; the result parses as JSON when `text` did. */
export function redactJson(text: string, findings: readonly Finding[]): Redacted {
  const groups = redactionGroups(findings)
  if (groups.length === 0) return { text, spans: [] }
  if (!isJson(text)) return redact(text, 0, text.length, findings)
  const tokens = tokensOf(text)
  const hits = new Map<Token, Hit>()
  for (const group of groups) {
    const touched = tokens.filter((token) => token.start < group.end && group.start < token.end)
    const within = touched.length === 1 && liesWithin(touched[0]!, group)
    for (const token of touched) {
      const hit = hits.get(token) ?? { type: group.type, whole: false, within: [] }
      hit.type = moreSensitive(hit.type, group.type)
      if (within) hit.within.push(group)
      else hit.whole = true
      hits.set(token, hit)
    }
  }
  const replacements: Replacement[] = []
  for (const [token, hit] of hits) {
    if (!hit.whole) replacements.push(...hit.within.map((group) => ({ start: group.start, end: group.end, text: placeholder(group.type) })))
    else if (token.kind === 'string') replacements.push({ start: token.start + 1, end: token.end - 1, text: placeholder(hit.type) })
    else replacements.push({ start: token.start, end: token.end, text: JSON.stringify(placeholder(hit.type)) })
  }
  replacements.sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (const replacement of replacements) {
    out += text.slice(at, replacement.start) + replacement.text
    at = replacement.end
  }
  return { text: out + text.slice(at), spans: replacements.map(({ start, end }) => ({ start, end })) }
}

/** The group lies within the string's characters and leaves its escape sequences whole. */
function liesWithin(token: Token, group: Group): boolean {
  return (
    token.kind === 'string' &&
    group.start > token.start &&
    group.end < token.end &&
    !token.escapes.some((sequence) => cuts(sequence, group.start) || cuts(sequence, group.end))
  )
}

function cuts(sequence: Span, at: number): boolean {
  return sequence.start < at && at < sequence.end
}

/** The strings and bare values of a text that parses as JSON. */
function tokensOf(text: string): Token[] {
  const tokens: Token[] = []
  for (let at = 0; at < text.length; ) {
    const char = text[at]!
    if (char === '"') {
      const escapes: Span[] = []
      let end = at + 1
      while (text[end] !== '"') {
        if (text[end] !== '\\') {
          end++
          continue
        }
        const length = text[end + 1] === 'u' ? 6 : 2
        escapes.push({ start: end, end: end + length })
        end += length
      }
      tokens.push({ kind: 'string', start: at, end: end + 1, escapes })
      at = end + 1
    } else if (BARE_CHAR.test(char)) {
      let end = at + 1
      while (end < text.length && BARE_CHAR.test(text[end]!)) end++
      tokens.push({ kind: 'bare', start: at, end, escapes: [] })
      at = end
    } else {
      at++
    }
  }
  return tokens
}
