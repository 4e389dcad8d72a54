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

export function countTokens(text: string): number {
  if (text.length <= RUN_LIMIT) return text.length === 0 ? 0 : countPiece(text)
  let total = 0
  forEachPiece(text, (start, end) => {
    total += countPiece(text.slice(start, end))
  })
  return total
}

/**
 * Cuts a text into parts of about `maxChars` (more only where one piece is longer) at the bounds
 * of the pieces countTokens counts it in. A part starts where a piece starts, so it is counted in
 * the same pieces: the parts' counts add up exactly to the text's, and a long text can be counted
 * by several threads.
 */
export function partsOf(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text]
  const parts: string[] = []
  let partStart = 0
  let partEnd = 0
  forEachPiece(text, (start, end) => {
    if (end - partStart > maxChars && partEnd > partStart) {
      parts.push(text.slice(partStart, partEnd))
      partStart = partEnd
    }
    partEnd = end
  })
  parts.push(text.slice(partStart))
  return parts
}

/** The pool task: one count per text. */
export function countTexts(texts: readonly string[]): number[] {
  return texts.map(countTokens)
}
