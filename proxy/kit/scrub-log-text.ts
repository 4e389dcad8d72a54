// Makes a free text (an error message, often a provider's, which may quote the prompt) fit for a
// log line: spans repeating the request's own texts (quoted or not), quoted spans, e-mail addresses, IP addresses, long digit runs (cards, phone numbers,
// national ids) and key-like tokens are replaced, and the result is capped. Cheap by design: a
// few regular expressions over a bounded text, no detector; it runs only when a line is written.
import { eraseEchoes } from '../pipeline/erase-echoes.ts'

const MAX_INPUT_CHARS = 2_000
const MAX_OUTPUT_CHARS = 200

const DOUBLE_QUOTED = /"[^"]*"|“[^”]*”|„[^“”]*[“”]|«[^»]*»|`[^`]*`/g
// A single quote opens a span only where a word does not continue (so "user's" does not), and
// closes one only where no word follows; the span may hold apostrophes.
const SINGLE_QUOTED = /(?<![\p{L}\p{N}_])['‘][\s\S]*?['’](?![\p{L}\p{N}_])/gu
// A quote left open (the text was cut, or quotes are unbalanced): everything after it may be quoted text.
const OPEN_QUOTE = /["“„«`]|(?<![\p{L}\p{N}_])['‘]/u
const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu
const KEY_LIKE = /\b(?:sk|pk|rk|key)[-_][\w*.-]{6,}/gi
// 20+ characters of a token alphabet holding both letters and digits: API keys, JWT parts, hashes.
const TOKEN_LIKE = /(?=[\w+/=-]*\d)(?=[\w+/=-]*[A-Za-z])[\w+/=-]{20,}/g
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g
// Seven or more digits, single spaces, dots, slashes or dashes between them allowed.
const DIGIT_RUN = /\d(?:[ ./-]?\d){6,}/g

/** `requestTexts`: the texts of the request the line is about, whose echoes are erased first. */
export function scrubLogText(text: string, requestTexts: Iterable<string> = []): string {
  let clean = text.length > MAX_INPUT_CHARS ? text.slice(0, MAX_INPUT_CHARS) : text
  clean = eraseEchoes(clean, requestTexts, '[echoed]')
  clean = clean.replace(DOUBLE_QUOTED, '[quoted]').replace(SINGLE_QUOTED, '[quoted]')
  const open = OPEN_QUOTE.exec(clean)
  if (open !== null) clean = `${clean.slice(0, open.index)}[quoted]`
  clean = clean.replace(EMAIL, '[email]').replace(KEY_LIKE, '[key]').replace(TOKEN_LIKE, '[token]').replace(IPV4, '[ip]').replace(DIGIT_RUN, '[number]')
  return clean.length > MAX_OUTPUT_CHARS ? `${clean.slice(0, MAX_OUTPUT_CHARS)}…` : clean
}
