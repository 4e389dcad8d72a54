// PL_PESEL: birth date (the month carries the century: +80 for 1800s, +20 for 2000s, +40, +60),
// serial and a check digit with weights 1-3-7-9.
import { digitAt, weightedSum } from '../checksums.ts'
import { isCalendarDate } from './calendar.ts'
import type { IdRule } from './rule.ts'

const PESEL = /(?<![\d])\d{11}(?![\w])/g
const WEIGHTS = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3] as const
const CENTURY_BY_MONTH_OFFSET: Readonly<Record<number, number>> = { 0: 1900, 20: 2000, 40: 2100, 60: 2200, 80: 1800 }

function isPesel(digits: string): boolean {
  if ((10 - (weightedSum(digits, WEIGHTS) % 10)) % 10 !== digitAt(digits, 10)) return false
  const encodedMonth = Number(digits.slice(2, 4))
  const offset = Math.floor((encodedMonth - 1) / 20) * 20
  const century = CENTURY_BY_MONTH_OFFSET[offset]
  if (century === undefined) return false
  return isCalendarDate(century + Number(digits.slice(0, 2)), encodedMonth - offset, Number(digits.slice(4, 6)))
}

export const polandRules: readonly IdRule[] = [
  { type: 'PL_PESEL', pattern: PESEL, isValid: (m) => isPesel(m[0]), score: 0.5, context: /pesel|numer ewidencyjny/i },
]
