// Token counts with the o200k encoding (GPT-4o family). Other providers' tokenizers differ by a
// few percent; this count is what the gateway uses when a provider reports none.
//
// Byte-pair encoding is super-linear in the length of one pre-token, and a run without spaces
// (CJK prose, a base64 blob, "aaaa…") is one pre-token: a single 16,000-character run took over a
// second. Text is therefore counted in pieces, cut before a space that starts a word (where the
// encoder splits anyway, so ordinary text counts the same) and inside any run longer than
// RUN_LIMIT characters, which keeps the work linear: about 5 µs per character at worst (random
// CJK), far less for prose.
import { countTokens as countEncoded } from 'gpt-tokenizer/encoding/o200k_base'

/** Characters of one run without whitespace counted as one piece. */
export const RUN_LIMIT = 64
/** Pieces of ordinary text are about this long, so the encoder's per-call cost stays small. */
const PIECE_CHARS = 2048

const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff
/** A character that ends a word or number pre-token, and no other. */
const WORD_END = /^[\p{L}\p{N}]$/u

/** Special-token text such as `<|endoftext|>` counts as the plain text it is (the encoder would throw). */
const AS_TEXT = { disallowedSpecial: new Set<string>() }
const countPiece = (piece: string): number => countEncoded(piece, AS_TEXT)

/** Calls `piece` with the bounds of each piece a text is counted in, in order. */
function forEachPiece(text: string, piece: (start: number, end: number) => void): void {
  let start = 0
  let runStart = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (isSpace(code)) {
      // A space followed by a word starts a new pre-token: a cut here changes no count.
      if (code === 32 && i - start >= PIECE_CHARS && i + 1 < text.length && !isSpace(text.charCodeAt(i + 1))) {
        piece(start, i)
        start = i
      }
      runStart = i + 1
    } else if (i - runStart >= RUN_LIMIT && !isLowSurrogate(code)) {
      piece(start, i)
      start = i
      runStart = i
    }
  }
  piece(start, text.length)
}

/** True when countTokens cuts a run of `text`: more than RUN_LIMIT characters without whitespace. */
export function hasCutRun(text: string): boolean {
  // A loop, not /[^ \t\n\r]{65}/: the regex retries from every character of a word, and this
  // check runs on every prompt of every request.
  let run = 0
  for (let i = 0; i < text.length; i++) {
    if (isSpace(text.charCodeAt(i))) run = 0
    else if (++run > RUN_LIMIT) return true
  }
  return false
}

export function countTokens(text: string): number {
  if (text.length <= RUN_LIMIT) return text.length === 0 ? 0 : countPiece(text)
  let total = 0
  forEachPiece(text, (start, end) => {
    total += countPiece(text.slice(start, end))
  })
  return total
}

/**
 * Cuts a text into parts of at most `maxChars` where a cut changes no count, so that the parts'
 * counts add up exactly to the text's and a long text can be counted by several threads. Cheap
 * enough for the event loop: it reads back from each part's limit to the nearest such place
 * instead of scanning the text.
 */
export function partsOf(text: string, maxChars: number): string[] {
  const parts: string[] = []
  let start = 0
  while (text.length - start > maxChars) {
    const end = cutBefore(text, start, start + maxChars)
    if (end === undefined) break
    parts.push(text.slice(start, end))
    start = end
  }
  parts.push(text.slice(start))
  return parts
}

/**
 * The last place in (start, limit] where a cut changes no count: before a space that starts a
 * word, or a line break right after a letter or digit (the encoder's pre-tokens end there:
 * none holds both), or else where countTokens cuts a run without whitespace. `start` is itself
 * such a place (or 0). Undefined when there is none: the rest is then one part.
 */
function cutBefore(text: string, start: number, limit: number): number | undefined {
  for (let i = limit; i > start; i--) {
    const code = text.charCodeAt(i)
    if (code === 32 && i + 1 < text.length && !isSpace(text.charCodeAt(i + 1))) return i
    if ((code === 10 || code === 13) && WORD_END.test(text[i - 1]!)) return i
  }
  // The runs without whitespace, from the last: countTokens cuts one every RUN_LIMIT characters
  // from its start, never before a low surrogate.
  let end = limit
  while (end > start) {
    while (end > start && isSpace(text.charCodeAt(end))) end--
    let runStart = end
    while (runStart > start && !isSpace(text.charCodeAt(runStart - 1))) runStart--
    let cut: number | undefined
    for (let i = runStart + RUN_LIMIT; i <= end; i += RUN_LIMIT) {
      while (i <= end && isLowSurrogate(text.charCodeAt(i))) i++
      if (i <= end && i > start) cut = i
    }
    if (cut !== undefined) return cut
    end = runStart - 1
  }
  return undefined
}

/** The pool task: one count per text. */
export function countTexts(texts: readonly string[]): number[] {
  return texts.map(countTokens)
}
