// ZA_ID_NUMBER: YYMMDD birth date, four-digit sequence (sex), citizenship digit (0 citizen,
// 1 permanent resident, 2 refugee), one more digit and a Luhn check digit.
import { isLuhnValid } from '../checksums.ts'
import { isDateInEitherCentury } from './calendar.ts'
import type { IdRule } from './rule.ts'

const ZA_ID = /(?<![\d])\d{13}(?![\w])/g

function isZaId(d: string): boolean {
  if (!isDateInEitherCentury(Number(d.slice(0, 2)), Number(d.slice(2, 4)), Number(d.slice(4, 6)))) return false
  return '012'.includes(d[10] as string) && isLuhnValid(d)
}

export const southAfricaRules: readonly IdRule[] = [
  { type: 'ZA_ID_NUMBER', pattern: ZA_ID, isValid: (m) => isZaId(m[0]), score: 0.5, context: /south african|\bza\b|identity number|id number/i },
]
