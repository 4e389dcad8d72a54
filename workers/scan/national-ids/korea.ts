// KR_RRN (resident registration number) and KR_FRN (foreigner registration number): YYMMDD, the
// seventh digit gives sex and century (1–4 citizens, 5–8 foreigners), six more digits. Numbers
// issued before October 2020 also carry a check digit; one that holds raises the score.
import { digitAt, weightedSum } from '../checksums.ts'
import { isCalendarDate } from './calendar.ts'
import { group, type IdRule } from './rule.ts'

const REGISTRATION = /(?<![\d-])(\d{2})(\d{2})(\d{2})-?([1-8])\d{6}(?![\w-])/g
const WEIGHTS = [2, 3, 4, 5, 6, 7, 8, 9, 2, 3, 4, 5] as const
const CONTEXT = /rrn|resident registration|주민등록|외국인등록|registration number|frn/i

function hasValidBirthDate(m: RegExpExecArray): boolean {
  const sexDigit = Number(group(m, 4))
  const century = [1, 2, 5, 6].includes(sexDigit) ? 1900 : 2000
  return isCalendarDate(century + Number(group(m, 1)), Number(group(m, 2)), Number(group(m, 3)))
}

function hasCheckDigit(m: RegExpExecArray): boolean {
  const digits = m[0].replace('-', '')
  return (11 - (weightedSum(digits, WEIGHTS) % 11)) % 10 === digitAt(digits, 12)
}

const isCitizen = (m: RegExpExecArray): boolean => Number(group(m, 4)) <= 4

export const koreaRules: readonly IdRule[] = [
  {
    type: 'KR_RRN',
    pattern: REGISTRATION,
    isValid: (m) => isCitizen(m) && hasValidBirthDate(m),
    score: 0.4,
    confirm: hasCheckDigit,
    confirmedScore: 0.85,
    context: CONTEXT,
  },
  {
    type: 'KR_FRN',
    pattern: REGISTRATION,
    isValid: (m) => !isCitizen(m) && hasValidBirthDate(m),
    score: 0.4,
    confirm: hasCheckDigit,
    confirmedScore: 0.85,
    context: CONTEXT,
  },
]
