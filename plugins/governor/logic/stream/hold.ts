// Where a stream's held-back text begins. Text before that point may be scanned and sent; text
// from it on may still be the beginning of a value whose end has not arrived, so it waits:
//   - the last token (a run without whitespace): "4111", "AKIA…", "ana.lopez@ex" may go on;
//   - tokens before it that look like parts of one value, joined by single blanks: "4111 1111",
//     "DE89 3704", "+1 (555) 123" — a plain word ends such a group; digits are joined to digits
//     also across the wider gaps a model writes between a card's groups (a tab, several blanks,
//     a line break), so "4111\n1111\n" waits for the next group;
//   - an armoured block from its "-----BEGIN" line until its "-----END … -----" line.
// A plain word (letters as in prose, "Sure,", "it's") is no part of a value of a type strict mode
// stops, so when only stopping matters (no redaction) a trailing one goes out at once, unless it
// directly follows an assignment ("password: hunter…"). What is held never exceeds the bounds
// below: beyond them the front goes out, checked like any other text.
import { MAX_SEPARATOR_CHARS } from '../../../../workers/scan/digit-groups.ts'

/** The longest run of value-like text held whole (long provider keys, JWTs, assigned secrets). */
export const MAX_HELD_CHARS = 4096
/** The longest armoured block (a PEM or PGP private key) held from its header to its footer. */
export const MAX_BLOCK_CHARS = 8192

interface HoldRules {
  /** A trailing plain word goes out at once (strict mode without redaction). */
  readonly releasePlainWords: boolean
}

const BLOCK_HEADER = '-----BEGIN'
const LF = 0x0a
const CR = 0x0d
const BLOCK_FOOTER = /-----END[^\n]*?-----/g
const PLAIN_WORD = /^[(["'“‘*]*\p{Lu}?\p{Ll}+(?:['’]\p{Ll}+)*[.,;:!?)\]"'”’*]*$/u
// Letters of scripts written without spaces (CJK, Thai…) end a token: a value is never made of them.
const TOKEN_BREAK = /[\s\p{Lo}]/u
const ASSIGNMENT_OPERATORS = '=:>'
/** Blanks skipped between an assignment's operator and its value, as the secret detector skips them. */
const MAX_OPERATOR_BLANKS = 8

/** Index from which `text` must still be held; never below `released`. */
export function holdStart(text: string, released: number, rules: HoldRules): number {
  const end = text.length
  const block = openBlock(text, released)
  if (block !== undefined && end - block <= MAX_BLOCK_CHARS) return block
  const start = Math.max(trailingRunStart(text, released, rules), end - MAX_HELD_CHARS, released)
  return isLowSurrogate(text.charCodeAt(start)) && start > released ? start - 1 : start
}

/** Where an armoured block that has not closed yet begins, looking from `from` on. */
function openBlock(text: string, from: number): number | undefined {
  for (let at = text.indexOf(BLOCK_HEADER, from); at !== -1; ) {
    BLOCK_FOOTER.lastIndex = at + BLOCK_HEADER.length
    const footer = BLOCK_FOOTER.exec(text)
    if (footer === null) return at
    at = text.indexOf(BLOCK_HEADER, footer.index + footer[0].length)
  }
  return undefined
}

function trailingRunStart(text: string, released: number, rules: HoldRules): number {
  const end = text.length
  const floor = Math.max(released, end - MAX_HELD_CHARS)
  if (end <= floor) return end
  let start: number
  const gap = digitGapStart(text, end, floor)
  if (gap !== undefined) {
    start = tokenStart(text, gap, floor)
  } else if (isBlank(text.charCodeAt(end - 1))) {
    // One blank after a value-like token keeps its group open ("4111 " may go on "1111").
    if (end - 1 <= floor || !isTokenChar(text, end - 2)) return end
    start = tokenStart(text, end - 1, floor)
    if (isPlainWord(text.slice(start, end - 1))) return end
  } else if (isTokenChar(text, end - 1)) {
    start = tokenStart(text, end, floor)
    if (rules.releasePlainWords && isPlainWord(text.slice(start, end)) && !followsOperator(text, start)) return end
  } else {
    return end
  }
  while (start - 2 >= floor) {
    const previousEnd =
      isBlank(text.charCodeAt(start - 1)) && isTokenChar(text, start - 2)
        ? start - 1
        : isDigit(text.charCodeAt(start))
          ? digitGapStart(text, start, floor)
          : undefined
    if (previousEnd === undefined) break
    const previous = tokenStart(text, previousEnd, floor)
    if (isPlainWord(text.slice(previous, previousEnd))) break
    start = previous
  }
  return start
}

/**
 * Where the whitespace that ends at `end` begins, when digits come before it and it may stand
 * between two groups of one number: a few blanks with at most one line break.
 */
function digitGapStart(text: string, end: number, floor: number): number | undefined {
  let at = end
  let lineBreaks = 0
  while (at > floor && end - at < MAX_SEPARATOR_CHARS && isGapChar(text.charCodeAt(at - 1))) {
    if (text.charCodeAt(at - 1) === LF) lineBreaks++
    at--
  }
  if (at === end || lineBreaks > 1 || at <= floor || !isDigit(text.charCodeAt(at - 1))) return undefined
  return at
}

function isGapChar(code: number): boolean {
  return isBlank(code) || code === LF || code === CR
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

/** Start of the token that ends at `end`, not looking below `floor`. */
function tokenStart(text: string, end: number, floor: number): number {
  let at = end
  while (at > floor && isTokenChar(text, at - 1)) at--
  return at
}

function isTokenChar(text: string, at: number): boolean {
  return at >= 0 && !TOKEN_BREAK.test(text[at]!)
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0xa0
}

function isPlainWord(token: string): boolean {
  return PLAIN_WORD.test(token)
}

/** The token is the value of an assignment-like "name: value" / "name = value". */
function followsOperator(text: string, start: number): boolean {
  let at = start - 1
  while (at >= 0 && start - at <= MAX_OPERATOR_BLANKS && isBlank(text.charCodeAt(at))) at--
  return at >= 0 && at < start - 1 && ASSIGNMENT_OPERATORS.includes(text[at]!)
}

// Prose: letters, blanks and sentence punctuation only: no digit, no symbol a value is written with
// (@ : / = _ - + …), no capital right after another letter ("AKIA", "eyJ", "DE") and no
// punctuation inside a word ("example.org").
const NOT_PROSE = /[^\p{L}\p{M}\s.,;!?'’"“”()[\]*]|\p{L}\p{Lu}|[.,;!?]\p{L}/u

/**
 * True when `text` can hold no value of a type strict mode stops or redaction replaces: every
 * such value (numbers, ids, keys, tokens, addresses) has a digit, a symbol or a capital inside a
 * word. Only phrases (prompt injection, custom rules) can be found in it.
 */
export function isPlainProse(text: string): boolean {
  return !NOT_PROSE.test(text)
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}
