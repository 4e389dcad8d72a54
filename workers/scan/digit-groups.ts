// Digit groups as numbers are written: the runs of digits of a text, each with the separator that
// links it to the group before. What links two groups is what a writer puts between the groups of
// one number: blanks (a tab, up to four spaces), one line break, or one of - . / _, with up to two
// blanks either side of the last two. Read in one pass without regular expressions over the
// groups, so the work is linear in the text, whatever it holds.

export interface DigitGroup {
  readonly start: number
  readonly end: number
  readonly digits: string
  /** The text between this group and the one before it, when that text links them into one run. */
  readonly separator: string | undefined
}

export const MAX_SEPARATOR_CHARS = 8
const MAX_BLANKS = 4
const MAX_PADDING = 2

/** Runs of linked digit groups, in the order of the text; a run holds one group or more. */
export function digitRuns(text: string): DigitGroup[][] {
  const runs: DigitGroup[][] = []
  let run: DigitGroup[] = []
  let previousEnd = -1
  for (let start = nextDigit(text, 0); start !== -1; start = nextDigit(text, previousEnd)) {
    let at = start + 1
    while (at < text.length && isDigit(text.charCodeAt(at))) at++
    const between = previousEnd >= 0 && start - previousEnd <= MAX_SEPARATOR_CHARS ? text.slice(previousEnd, start) : undefined
    const separator = between !== undefined && isDigitGroupSeparator(between) ? between : undefined
    if (separator === undefined && run.length > 0) {
      runs.push(run)
      run = []
    }
    run.push({ start, end: at, digits: text.slice(start, at), separator })
    previousEnd = at
  }
  if (run.length > 0) runs.push(run)
  return runs
}

/**
 * Where the next digit from `from` on is, or -1. A digit a separator away is looked for by hand
 * (text dense with digits); beyond that, the engine's search runs over prose far faster than a
 * loop over its characters.
 */
function nextDigit(text: string, from: number): number {
  const near = Math.min(text.length, from + MAX_SEPARATOR_CHARS + 1)
  for (let at = from; at < near; at++) if (isDigit(text.charCodeAt(at))) return at
  if (near === text.length) return -1
  NEXT_DIGIT.lastIndex = near
  return NEXT_DIGIT.exec(text)?.index ?? -1
}

/** Blanks alone, or one line break or one of - . / _ with a little padding of blanks. */
function isDigitGroupSeparator(text: string): boolean {
  let at = 0
  while (at < text.length && isBlank(text.charCodeAt(at))) at++
  if (at === text.length) return at <= MAX_BLANKS
  if (at > MAX_PADDING) return false
  const mark = text.charCodeAt(at)
  if (mark === CR && text.charCodeAt(at + 1) === LF) at += 2
  else if (mark === LF || MARKS.includes(text[at]!)) at++
  else return false
  const padding = text.length - at
  if (padding > MAX_PADDING) return false
  for (; at < text.length; at++) if (!isBlank(text.charCodeAt(at))) return false
  return true
}

const NEXT_DIGIT = /[0-9]/g
const MARKS = '-./_'
const CR = 0x0d
const LF = 0x0a

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09
}
