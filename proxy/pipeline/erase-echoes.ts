// Erases the spans of a short text (a provider's error message) that repeat a request's own texts,
// quoted or not. A span counts when it shares a run of at least ECHO_MIN_CHARS characters with one
// of the texts (ASCII letters compared without case, any run of white space as one space): about three words, so
// a sentence, a name with its context or a cut-off echo goes, while the few words an error message
// may share with a prompt by chance ("is not valid", "context length") stay.
//
// Work is linear in the request: the text's windows are hashed once, then each request text is read
// once with a rolling hash, and a window is compared character by character only on a hash match,
// at most once after it matched. Never text × request, even for a 1 MB prompt.

export const ECHO_MIN_CHARS = 16

// A hash base chosen per process, so a prompt cannot be built to collide with an error's windows.
const BASE = (Math.floor(Math.random() * 0x3fffffff) << 1) | 1
const BASE_POW = (() => {
  let pow = 1
  for (let i = 1; i < ECHO_MIN_CHARS; i++) pow = Math.imul(pow, BASE)
  return pow
})()
// The filter holds one bit per hash's top 16 bits.
const FILTER_SHIFT = 16
const WORD_CHAR = /[\p{L}\p{N}]/u
const SPACE = 32

function fold(code: number): number {
  if (code >= 65 && code <= 90) return code + 32
  if (code <= 32 || code === 0xa0 || code === 0x2028 || code === 0x2029) return SPACE
  return code
}

/** The hash of the window ending with `code`, from the one before it (which ended with `dropped` before it). */
function roll(hash: number, code: number, dropped: number | undefined): number {
  const out = dropped === undefined ? hash : (hash - Math.imul(dropped, BASE_POW)) | 0
  return (Math.imul(out, BASE) + code) | 0
}

const filterBit = (hash: number) => 1 << ((hash >>> FILTER_SHIFT) & 31)
const filterWord = (hash: number) => hash >>> (FILTER_SHIFT + 5)

/** A text's characters as compared (folded, white space runs as one space), with where each came from. */
function foldedCodes(text: string): { codes: number[]; at: number[] } {
  const codes: number[] = []
  const at: number[] = []
  for (let i = 0; i < text.length; i++) {
    const code = fold(text.charCodeAt(i))
    if (code === SPACE && codes.at(-1) === SPACE) continue
    codes.push(code)
    at.push(i)
  }
  return { codes, at }
}

/** Which characters of `text` lie in a run of ECHO_MIN_CHARS or more shared with one of `sources`. */
export function echoedChars(text: string, sources: Iterable<string>): Uint8Array | undefined {
  const { codes, at } = foldedCodes(text)
  if (codes.length < ECHO_MIN_CHARS) return undefined
  // Window hash → the starts of the text's windows with that hash not yet found in a source.
  const windows = new Map<number, number[]>()
  // Most of a request's windows are passed over on this filter, without a map lookup.
  const filter = new Uint32Array(1 << (32 - FILTER_SHIFT - 5))
  let hash = 0
  for (let i = 0; i < codes.length; i++) {
    hash = roll(hash, codes[i]!, codes[i - ECHO_MIN_CHARS])
    if (i < ECHO_MIN_CHARS - 1) continue
    const starts = windows.get(hash)
    if (starts === undefined) windows.set(hash, [i - ECHO_MIN_CHARS + 1])
    else starts.push(i - ECHO_MIN_CHARS + 1)
    filter[filterWord(hash)]! |= filterBit(hash)
  }
  let echoed: Uint8Array | undefined
  // The source's last ECHO_MIN_CHARS folded characters, oldest at `count % ECHO_MIN_CHARS`.
  const recent = new Int32Array(ECHO_MIN_CHARS)
  const sameWindow = (start: number, count: number) => {
    for (let k = 0; k < ECHO_MIN_CHARS; k++) if (codes[start + k] !== recent[(count + k) % ECHO_MIN_CHARS]) return false
    return true
  }
  for (const source of sources) {
    hash = 0
    let count = 0
    let last = -1
    for (let i = 0; i < source.length; i++) {
      const code = fold(source.charCodeAt(i))
      if (code === SPACE && last === SPACE) continue
      last = code
      const slot = count % ECHO_MIN_CHARS
      hash = roll(hash, code, count >= ECHO_MIN_CHARS ? recent[slot] : undefined)
      recent[slot] = code
      count++
      if (count < ECHO_MIN_CHARS || (filter[filterWord(hash)]! & filterBit(hash)) === 0) continue
      const starts = windows.get(hash)
      if (starts === undefined) continue
      let unmatched: number[] | undefined
      for (const start of starts) {
        if (sameWindow(start, count)) (echoed ??= new Uint8Array(text.length)).fill(1, at[start]!, at[start + ECHO_MIN_CHARS - 1]! + 1)
        else (unmatched ??= []).push(start)
      }
      if (unmatched?.length === starts.length) continue
      // A window is compared again only while it has not matched: repeats in the request cost a lookup.
      if (unmatched !== undefined) windows.set(hash, unmatched)
      else if (windows.delete(hash) && windows.size === 0) return echoed
    }
  }
  return echoed
}

/**
 * `text` with each echoed span replaced by `marker`; a span that ends inside a word takes the rest
 * of that word with it, so no fragment of an echoed name is left.
 */
export function eraseEchoes(text: string, sources: Iterable<string>, marker: string): string {
  const echoed = echoedChars(text, sources)
  if (echoed === undefined) return text
  let out = ''
  let i = 0
  while (i < text.length) {
    const next = echoed.indexOf(1, i)
    if (next === -1) return out + text.slice(i)
    let end = next
    while (end < text.length && (echoed[end] === 1 || (WORD_CHAR.test(text[end - 1]!) && WORD_CHAR.test(text[end]!)))) end++
    // The white space around an echo is the message's: the marker takes its place between words.
    let start = next
    while (start < end && fold(text.charCodeAt(start)) === SPACE) start++
    while (start > i && WORD_CHAR.test(text[start - 1]!) && WORD_CHAR.test(text[start]!)) start--
    let stop = end
    while (stop > start && fold(text.charCodeAt(stop - 1)) === SPACE) stop--
    out += text.slice(i, start) + (stop > start ? marker : '') + text.slice(stop, end)
    i = end
  }
  return out
}
