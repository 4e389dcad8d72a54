// Features of the learned prompt-injection model, shared by its training (scripts/) and by the
// scanner: text folded to one form per letter, cut into sentences, each sentence turned into
// hashed word uni/bi-grams and character 3–5-grams. Folding keeps one code unit per code unit of
// the text, so a sentence found in the folded codes is the same span of the scanned text.
//
// Folding: lower case; Latin, Greek and Cyrillic accents dropped ("é" → "e"); inside a word that
// mixes Latin with Cyrillic or Greek letters, the lookalikes read as Latin ("іgnоrе" → "ignore");
// inside a word of letters and digits, leet digits read as letters ("1gn0r3" → "ignore").

export const HASH_BITS = 18
export const BUCKETS = 1 << HASH_BITS

/** Receives each feature of a sentence as a bucket, by group (each group is normalised apart). */
export interface FeatureSink {
  word(bucket: number): void
  char(bucket: number): void
}

export interface Sentence {
  readonly start: number
  readonly end: number
}

const FOLDED = new Map<number, number>()

/** The folded form of one code unit outside ASCII: lower case, without Latin/Greek/Cyrillic accents. */
function foldWide(code: number): number {
  const known = FOLDED.get(code)
  if (known !== undefined) return known
  let folded = code
  const lower = String.fromCharCode(code).toLowerCase()
  if (lower.length === 1) {
    folded = lower.charCodeAt(0)
    const parts = lower.normalize('NFD')
    if (parts.length > 1 && /^[\u0300-\u036f]+$/.test(parts.slice(1))) folded = parts.charCodeAt(0)
  }
  FOLDED.set(code, folded)
  return folded
}

// Cyrillic and Greek letters that look like Latin ones (lower case, after folding).
const LOOKALIKES: ReadonlyMap<number, number> = new Map(
  [
    ['а', 'a'],
    ['в', 'b'],
    ['е', 'e'],
    ['ё', 'e'],
    ['к', 'k'],
    ['м', 'm'],
    ['н', 'h'],
    ['о', 'o'],
    ['р', 'p'],
    ['с', 'c'],
    ['т', 't'],
    ['у', 'y'],
    ['х', 'x'],
    ['і', 'i'],
    ['ї', 'i'],
    ['ј', 'j'],
    ['ѕ', 's'],
    ['ԁ', 'd'],
    ['ԛ', 'q'],
    ['ԝ', 'w'],
    ['α', 'a'],
    ['β', 'b'],
    ['ε', 'e'],
    ['ι', 'i'],
    ['κ', 'k'],
    ['ν', 'v'],
    ['ο', 'o'],
    ['ρ', 'p'],
    ['τ', 't'],
    ['υ', 'u'],
    ['χ', 'x'],
  ].map(([from, to]) => [from!.charCodeAt(0), to!.charCodeAt(0)]),
)
const LEET: ReadonlyMap<number, number> = new Map(
  [
    ['0', 'o'],
    ['1', 'i'],
    ['3', 'e'],
    ['4', 'a'],
    ['5', 's'],
    ['7', 't'],
    ['8', 'b'],
  ].map(([from, to]) => [from!.charCodeAt(0), to!.charCodeAt(0)]),
)

const isAsciiLetter = (c: number): boolean => c >= 97 && c <= 122
const isDigit = (c: number): boolean => c >= 48 && c <= 57
const isLookalikeScript = (c: number): boolean => (c >= 0x370 && c <= 0x3ff) || (c >= 0x400 && c <= 0x52f)
/** Letters and digits of every script, and the marks that some scripts write inside words. */
function isWordUnit(c: number): boolean {
  if (c < 0x80) return isAsciiLetter(c) || isDigit(c) || (c >= 65 && c <= 90)
  return c >= 0xaa && !isSpace(c) && !isWidePunctuation(c)
}
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029
}
// General and CJK punctuation, Devanagari danda, Arabic comma and question mark, and the rest of
// Latin-1's symbols: not part of a word.
function isWidePunctuation(c: number): boolean {
  return (
    (c >= 0x2010 && c <= 0x2bff) ||
    (c >= 0x3001 && c <= 0x303f) ||
    (c >= 0xff01 && c <= 0xff0f) ||
    c === 0x964 ||
    c === 0x965 ||
    c === 0x60c ||
    c === 0x61f ||
    c === 0xab ||
    c === 0xbb ||
    c === 0xb7 ||
    c === 0xbf ||
    c === 0xa1 ||
    (c >= 0xff1a && c <= 0xff20)
  )
}

/** The text folded code unit by code unit (same length as the text). */
export function foldText(text: string): Uint16Array {
  const codes = new Uint16Array(text.length)
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    codes[i] = c < 0x80 ? (c >= 65 && c <= 90 ? c + 32 : c) : foldWide(c)
  }
  // Words that mix scripts or letters with digits are disguises: read them as plain Latin.
  let i = 0
  while (i < codes.length) {
    if (!isWordUnit(codes[i]!)) {
      i++
      continue
    }
    let end = i
    let latin = false
    let lookalike = false
    let digit = false
    while (end < codes.length && isWordUnit(codes[end]!)) {
      const c = codes[end]!
      if (isAsciiLetter(c)) latin = true
      else if (isDigit(c)) digit = true
      else if (isLookalikeScript(c)) lookalike = true
      end++
    }
    if (latin && lookalike) for (let k = i; k < end; k++) codes[k] = LOOKALIKES.get(codes[k]!) ?? codes[k]!
    if (latin && digit) for (let k = i; k < end; k++) codes[k] = LEET.get(codes[k]!) ?? codes[k]!
    i = end
  }
  return codes
}

/** Longest sentence in code units: a text without stops is cut into pieces of about this size. */
const MAX_SENTENCE = 400

// Full stops of the scripts in the training data: . ! ? and the CJK, Devanagari and Arabic ones.
function isStop(c: number): boolean {
  return c === 46 || c === 33 || c === 63 || c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0x964 || c === 0x965 || c === 0x61f || c === 0x6d4
}
const isWide = (c: number): boolean => c >= 0x3000

/**
 * Sentences of the folded text: cut after a stop followed by a space (or a CJK stop anywhere),
 * and at every line break; blank stretches belong to no sentence.
 */
export function sentencesOf(codes: Uint16Array): Sentence[] {
  const sentences: Sentence[] = []
  let start = -1
  const close = (end: number): void => {
    let from = start
    while (from < end) {
      let to = Math.min(end, from + MAX_SENTENCE)
      if (to < end) {
        let cut = to
        while (cut > from + MAX_SENTENCE / 2 && !isSpace(codes[cut]!)) cut--
        if (cut > from + MAX_SENTENCE / 2) to = cut
      }
      sentences.push({ start: from, end: to })
      from = to
    }
    start = -1
  }
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!
    if (c === 10 || c === 13) {
      if (start >= 0) close(i)
      continue
    }
    if (start < 0) {
      if (isSpace(c)) continue
      start = i
    }
    if (isStop(c) && (isWide(c) || i + 1 >= codes.length || isSpace(codes[i + 1]!))) close(i + 1)
  }
  if (start >= 0) close(codes.length)
  return sentences
}

// FNV-1a, 32 bits, with a different start per feature kind so that a word and a bigram differ.
const FNV_PRIME = 0x01000193
const WORD_SEED = 0x811c9dc5
const BIGRAM_SEED = 0x050c5d1f
const CHAR_SEED = 0x2b3f6a1d
const BUCKET_SHIFT = 32 - HASH_BITS
/** Longest word hashed; longer runs (a CJK line, a base64 blob) are cut. */
const MAX_WORD = 24

/**
 * Every feature of the sentence [start, end) of the folded codes, to the sink: words and word
 * pairs, then character 3-, 4- and 5-grams over the sentence with blank runs read as one space.
 */
export function sentenceFeatures(codes: Uint16Array, start: number, end: number, sink: FeatureSink): void {
  let previous = 0
  let havePrevious = false
  let i = start
  while (i < end) {
    if (!isWordUnit(codes[i]!)) {
      i++
      continue
    }
    let h = WORD_SEED
    let length = 0
    while (i < end && isWordUnit(codes[i]!)) {
      if (length < MAX_WORD) h = Math.imul(h ^ codes[i]!, FNV_PRIME)
      length++
      i++
    }
    sink.word(h >>> BUCKET_SHIFT)
    if (havePrevious) sink.word(Math.imul(Math.imul(BIGRAM_SEED ^ previous, FNV_PRIME) ^ h, FNV_PRIME) >>> BUCKET_SHIFT)
    previous = h
    havePrevious = true
  }
  // A ring of the last five code units (spaces collapsed) gives each n-gram ending here.
  let c1 = 32
  let c2 = 32
  let c3 = 32
  let c4 = 32
  let seen = 1
  for (let k = start; k <= end; k++) {
    const raw = k === end ? 32 : codes[k]!
    const c = isSpace(raw) ? 32 : raw
    if (c === 32 && c1 === 32) continue
    seen++
    if (seen >= 3) sink.char(Math.imul(Math.imul(Math.imul(CHAR_SEED ^ c2, FNV_PRIME) ^ c1, FNV_PRIME) ^ c, FNV_PRIME) >>> BUCKET_SHIFT)
    if (seen >= 4)
      sink.char(Math.imul(Math.imul(Math.imul(Math.imul(CHAR_SEED ^ c3, FNV_PRIME) ^ c2, FNV_PRIME) ^ c1, FNV_PRIME) ^ c, FNV_PRIME) >>> BUCKET_SHIFT)
    if (seen >= 5)
      sink.char(
        Math.imul(Math.imul(Math.imul(Math.imul(Math.imul(CHAR_SEED ^ c4, FNV_PRIME) ^ c3, FNV_PRIME) ^ c2, FNV_PRIME) ^ c1, FNV_PRIME) ^ c, FNV_PRIME) >>>
          BUCKET_SHIFT,
      )
    c4 = c3
    c3 = c2
    c2 = c1
    c1 = c
  }
}

/** Script groups with their own threshold: a language's benign text scores differently. */
export const SCRIPT_GROUPS = [
  'latin',
  'cyrillic',
  'greek',
  'arabic',
  'devanagari',
  'bengali',
  'tamil',
  'thai',
  'hangul',
  'japanese',
  'chinese',
  'other',
] as const
export type ScriptGroup = (typeof SCRIPT_GROUPS)[number]

function scriptOfCode(c: number): ScriptGroup | undefined {
  if (c < 0x80) return isAsciiLetter(c) ? 'latin' : undefined
  if (c <= 0x24f) return c >= 0xc0 ? 'latin' : undefined
  if (c >= 0x370 && c <= 0x3ff) return 'greek'
  if (c >= 0x400 && c <= 0x52f) return 'cyrillic'
  if (c >= 0x600 && c <= 0x6ff) return 'arabic'
  if (c >= 0x900 && c <= 0x97f) return 'devanagari'
  if (c >= 0x980 && c <= 0x9ff) return 'bengali'
  if (c >= 0xb80 && c <= 0xbff) return 'tamil'
  if (c >= 0xe00 && c <= 0xe7f) return 'thai'
  if (c >= 0x1e00 && c <= 0x1eff) return 'latin'
  if ((c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f) || (c >= 0xac00 && c <= 0xd7a3)) return 'hangul'
  if (c >= 0x3040 && c <= 0x30ff) return 'japanese'
  if (c >= 0x4e00 && c <= 0x9fff) return 'chinese'
  if (isWordUnit(c) && !(c >= 0xd800 && c <= 0xdfff)) return 'other'
  return undefined
}

/** The script most letters of the folded text are written in; any kana makes Han text Japanese. */
export function scriptOf(codes: Uint16Array): ScriptGroup {
  const counts = new Map<ScriptGroup, number>()
  for (let i = 0; i < codes.length; i++) {
    const group = scriptOfCode(codes[i]!)
    if (group !== undefined) counts.set(group, (counts.get(group) ?? 0) + 1)
  }
  let best: ScriptGroup = 'latin'
  let bestCount = 0
  for (const group of SCRIPT_GROUPS) {
    const count = counts.get(group) ?? 0
    if (count > bestCount) {
      best = group
      bestCount = count
    }
  }
  if (best === 'chinese' && (counts.get('japanese') ?? 0) > 0) return 'japanese'
  return best
}
