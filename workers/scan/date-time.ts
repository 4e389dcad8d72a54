// DATE_TIME: calendar dates (numeric with one kind of separator, ISO 8601 with optional time and
// offset, English month names) whose day and month exist. Dates are personal data when they are
// someone's birth date or similar, so those context words raise the score; a bare month/year or
// month/day is only weak evidence.
import { scoreWithContext } from './context.ts'
import type { Detector, Finding } from './types.ts'

const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const EDGE_BEFORE = '(?<![\\w/.\\-:])'
const EDGE_AFTER = '(?![\\w/\\-]|[.:]\\d)'

const ISO_DATE_TIME = new RegExp(
  `${EDGE_BEFORE}(\\d{4})-(\\d{2})-(\\d{2})(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?(?:Z|[+\\-]\\d{2}:?\\d{2})?)?${EDGE_AFTER}`,
  'g',
)
const YEAR_FIRST = new RegExp(`${EDGE_BEFORE}(\\d{4})([/.])(\\d{1,2})\\2(\\d{1,2})${EDGE_AFTER}`, 'g')
const DAY_MONTH_YEAR = new RegExp(`${EDGE_BEFORE}(\\d{1,2})([/.\\-])(\\d{1,2})\\2(\\d{2}|\\d{4})${EDGE_AFTER}`, 'g')
const NAMED_MONTH = new RegExp(
  `${EDGE_BEFORE}(?:(\\d{1,2})(?:st|nd|rd|th)?[ \\-]?${MONTH}\\.?(?:,?[ \\-](\\d{4}|\\d{2}))?|${MONTH}\\.?[ \\-](\\d{1,2})(?:st|nd|rd|th)?(?:,?[ \\-](\\d{4}))?|${MONTH}\\.?[ \\-](\\d{4}|\\d{2}))${EDGE_AFTER}`,
  'gi',
)
const PARTIAL = new RegExp(`${EDGE_BEFORE}(\\d{1,2})/(\\d{4}|\\d{1,2})${EDGE_AFTER}`, 'g')
const PERSONAL_CONTEXT = /born|birth|dob|d\.o\.b|birthday|date of|deceased|died|died on|expir|issued|admitted|discharged|geboren|nacimiento|naissance/i

export const dateTimeDetector: Detector = {
  types: ['DATE_TIME'],
  detect(text) {
    const findings: Finding[] = []
    const add = (start: number, end: number, base: number): void => {
      findings.push({ type: 'DATE_TIME', start, end, score: scoreWithContext(text, start, end, PERSONAL_CONTEXT, base, 0.95) })
    }
    each(ISO_DATE_TIME, text, (m) => {
      if (isDate(Number(m[1]), Number(m[2]), Number(m[3]))) add(m.index, m.index + m[0].length, 0.6)
    })
    each(YEAR_FIRST, text, (m) => {
      if (isDate(Number(m[1]), Number(m[3]), Number(m[4]))) add(m.index, m.index + m[0].length, 0.6)
    })
    each(DAY_MONTH_YEAR, text, (m) => {
      const a = Number(m[1])
      const b = Number(m[3])
      const year = Number(m[4])
      if (isDate(year, a, b) || isDate(year, b, a)) add(m.index, m.index + m[0].length, 0.6)
    })
    each(NAMED_MONTH, text, (m) => {
      const day = m[1] ?? m[3]
      if (day === undefined || (Number(day) >= 1 && Number(day) <= 31)) add(m.index, m.index + m[0].length, 0.5)
    })
    each(PARTIAL, text, (m) => {
      const month = Number(m[1])
      const second = m[2] as string
      const plausible = month >= 1 && month <= 12 && (second.length === 4 ? Number(second) >= 1900 : Number(second) >= 1 && Number(second) <= 31)
      if (plausible) add(m.index, m.index + m[0].length, 0.2)
    })
    return findings
  },
}

function each(pattern: RegExp, text: string, visit: (m: RegExpExecArray) => void): void {
  for (const m of text.matchAll(pattern)) visit(m)
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const

/** True when month/day exist (February 29 allowed: two-digit years leave the century open). */
function isDate(year: number, month: number, day: number): boolean {
  if (!Number.isInteger(year) || month < 1 || month > 12 || day < 1) return false
  return day <= (DAYS_IN_MONTH[month - 1] as number)
}
