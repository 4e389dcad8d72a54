// Normalizes text before scanning so that simple obfuscation does not hide an entity: Unicode
// NFKC (fullwidth and compatibility forms become plain ASCII), invisible characters removed,
// percent-escapes of printable ASCII decoded, and Unicode tag characters (used to smuggle hidden
// instructions) turned into the ASCII they stand for. Every normalized code unit remembers the
// span of original text it came from, so findings map back to exact offsets in what was sent.

export interface Span {
  readonly start: number
  readonly end: number
}

interface NormalizedText {
  readonly text: string
  /** The span of the original text that produced normalized [start, end). */
  toOriginal(start: number, end: number): Span
}

// Format and filler characters that render as nothing: soft hyphen, combining grapheme joiner,
// Arabic letter mark, Hangul fillers, Khmer inherent vowels, Mongolian selectors, zero-width
// space/joiners, bidi marks and embeddings, word joiner and invisible operators, variation
// selectors, BOM, and the variation selectors supplement.
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xe0100, 0xe01ef],
]

const NEEDS_WORK = /[^\x00-\x7F]|%[0-9A-Fa-f]{2}/
const TAG_FIRST = 0xe0000
const TAG_LAST = 0xe007f
const hex = (cp: number): string => `\\u{${cp.toString(16)}}`
// Characters that NFKC leaves alone but the scanner still removes or rewrites.
const NEEDS_CLUSTER_WORK = new RegExp(
  `[${[...INVISIBLE_RANGES, [TAG_FIRST, TAG_LAST] as const].map(([first, last]) => `${hex(first)}-${hex(last)}`).join('')}]`,
  'u',
)
// Fullwidth ASCII (U+FF01–U+FF5E) is the most common disguise; NFKC maps it to ASCII by offset.
const FULLWIDTH_FIRST = 0xff01
const FULLWIDTH_LAST = 0xff5e
const FULLWIDTH_OFFSET = 0xfee0
const COMBINING_MARKS = /\p{M}+/uy
const FIRST_COMBINING_MARK = 0x300

export function normalizeText(original: string): NormalizedText {
  if (!NEEDS_WORK.test(original)) {
    return { text: original, toOriginal: (start, end) => ({ start, end }) }
  }
  const builder = new MappedBuilder(original)
  let i = 0
  while (i < original.length) {
    const code = original.charCodeAt(i)
    if (code === 0x25 && i + 2 < original.length) {
      const decoded = printableEscape(original, i)
      if (decoded !== undefined) {
        builder.push(decoded, i, i + 3)
        i += 3
        continue
      }
    }
    if (code < 0x80) {
      if (original.charCodeAt(i + 1) >= FIRST_COMBINING_MARK && startsWithMark(original, i + 1)) {
        const end = COMBINING_MARKS.lastIndex
        builder.push(original.slice(i, end).normalize('NFKC'), i, end)
        i = end
      } else {
        builder.copy(i, i + 1)
        i += 1
      }
      continue
    }
    const runEnd = nonAsciiRunEnd(original, i)
    const run = original.slice(i, runEnd)
    if (!NEEDS_CLUSTER_WORK.test(run) && run.normalize('NFKC') === run) {
      builder.copy(i, runEnd)
      i = runEnd
      continue
    }
    while (i < runEnd) i = normalizeCluster(original, i, builder)
  }
  return builder.build()
}

function nonAsciiRunEnd(text: string, from: number): number {
  let end = from
  while (end < text.length && text.charCodeAt(end) >= 0x80) end++
  return end
}

/** Normalizes the character (with its combining marks) at `i`; returns where the next one starts. */
function normalizeCluster(original: string, i: number, builder: MappedBuilder): number {
  const cp = original.codePointAt(i) as number
  const width = cp > 0xffff ? 2 : 1
  const next = original.charCodeAt(i + width)
  const markFollows = next >= FIRST_COMBINING_MARK && !isNfkcStable(next) && startsWithMark(original, i + width)
  if (!markFollows && isNfkcStable(cp)) {
    builder.copy(i, i + width)
    return i + width
  }
  if (cp >= FULLWIDTH_FIRST && cp <= FULLWIDTH_LAST) {
    builder.push(String.fromCharCode(cp - FULLWIDTH_OFFSET), i, i + 1)
    return i + 1
  }
  if (cp >= TAG_FIRST && cp <= TAG_LAST) {
    if (cp >= 0xe0020 && cp <= 0xe007e) builder.push(String.fromCharCode(cp - TAG_FIRST), i, i + width)
    return i + width
  }
  if (isInvisible(cp)) return i + width
  const end = markFollows ? COMBINING_MARKS.lastIndex : i + width
  builder.push(original.slice(i, end).normalize('NFKC'), i, end)
  return end
}

// Scripts whose letters NFKC never changes (precomposed Latin-1 letters, kana, CJK ideographs,
// Hangul syllables); checking the range is far cheaper than calling normalize per character.
function isNfkcStable(cp: number): boolean {
  return (
    (cp >= 0xc0 && cp <= 0xff && cp !== 0xd7 && cp !== 0xf7) ||
    (cp >= 0x3041 && cp <= 0x3096) ||
    (cp >= 0x30a1 && cp <= 0x30fa) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xac00 && cp <= 0xd7a3)
  )
}

/** Tests for combining marks at `at`; on success COMBINING_MARKS.lastIndex is where they end. */
function startsWithMark(text: string, at: number): boolean {
  COMBINING_MARKS.lastIndex = at
  return COMBINING_MARKS.test(text)
}

function isInvisible(cp: number): boolean {
  for (const [first, last] of INVISIBLE_RANGES) if (cp >= first && cp <= last) return true
  return false
}

function printableEscape(text: string, at: number): string | undefined {
  const high = hexValue(text.charCodeAt(at + 1))
  const low = hexValue(text.charCodeAt(at + 2))
  if (high < 0 || low < 0) return undefined
  const byte = high * 16 + low
  return byte >= 0x20 && byte <= 0x7e ? String.fromCharCode(byte) : undefined
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 65 && code <= 70) return code - 55
  if (code >= 97 && code <= 102) return code - 87
  return -1
}

/**
 * Collects normalized text and, per normalized code unit, the original span it came from.
 * Unchanged stretches are copied as slices of the original, not character by character.
 */
class MappedBuilder {
  private readonly original: string
  private readonly parts: string[] = []
  private from: Int32Array
  private to: Int32Array
  private length = 0
  private pendingStart = -1
  private pendingEnd = -1

  constructor(original: string) {
    this.original = original
    this.from = new Int32Array(original.length + 16)
    this.to = new Int32Array(original.length + 16)
  }

  /** Original text [start, end) that normalization leaves as it is. */
  copy(start: number, end: number): void {
    if (this.pendingEnd !== start) {
      this.flush()
      this.pendingStart = start
    }
    this.pendingEnd = end
    this.reserve(end - start)
    for (let k = start; k < end; k++) {
      this.from[this.length] = k
      this.to[this.length] = k + 1
      this.length++
    }
  }

  /** Replacement text for original [start, end). */
  push(piece: string, start: number, end: number): void {
    this.flush()
    this.parts.push(piece)
    this.reserve(piece.length)
    for (let k = 0; k < piece.length; k++) {
      this.from[this.length] = start
      this.to[this.length] = end
      this.length++
    }
  }

  build(): NormalizedText {
    this.flush()
    const text = this.parts.join('')
    const from = this.from
    const to = this.to
    const originalLength = this.original.length
    return {
      text,
      toOriginal(start, end) {
        if (end <= start) {
          const at = start < text.length ? (from[start] as number) : originalLength
          return { start: at, end: at }
        }
        return { start: from[start] as number, end: to[end - 1] as number }
      },
    }
  }

  private flush(): void {
    if (this.pendingStart >= 0) this.parts.push(this.original.slice(this.pendingStart, this.pendingEnd))
    this.pendingStart = -1
    this.pendingEnd = -1
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.from.length) return
    const capacity = Math.max(this.from.length * 2, this.length + extra)
    const from = new Int32Array(capacity)
    const to = new Int32Array(capacity)
    from.set(this.from)
    to.set(this.to)
    this.from = from
    this.to = to
  }
}
