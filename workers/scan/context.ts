// Context words raise a finding's score the way Presidio's context enhancer does: a bare nine-digit
// number is weak evidence of an SSN, the same number after "SSN:" is strong evidence.

const WINDOW_BEFORE = 48
const WINDOW_AFTER = 24

/** True when `words` (a case-insensitive regex without the g flag) matches near [start, end). */
export function hasContextNear(text: string, start: number, end: number, words: RegExp): boolean {
  const before = text.slice(Math.max(0, start - WINDOW_BEFORE), start)
  if (words.test(before)) return true
  return words.test(text.slice(end, end + WINDOW_AFTER))
}

/** The boosted score when context supports the finding, the base score otherwise. */
export function scoreWithContext(text: string, start: number, end: number, words: RegExp, base: number, boosted: number): number {
  return hasContextNear(text, start, end, words) ? boosted : base
}
