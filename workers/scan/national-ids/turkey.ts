// TR_NATIONAL_ID (T.C. Kimlik No): eleven digits, no leading zero, two check digits.
import { digitAt } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const KIMLIK = /(?<![\d])[1-9]\d{10}(?![\w])/g

function isKimlikNo(d: string): boolean {
  const odd = digitAt(d, 0) + digitAt(d, 2) + digitAt(d, 4) + digitAt(d, 6) + digitAt(d, 8)
  const even = digitAt(d, 1) + digitAt(d, 3) + digitAt(d, 5) + digitAt(d, 7)
  if ((((odd * 7 - even) % 10) + 10) % 10 !== digitAt(d, 9)) return false
  return (odd + even + digitAt(d, 9)) % 10 === digitAt(d, 10)
}

export const turkeyRules: readonly IdRule[] = [
  { type: 'TR_NATIONAL_ID', pattern: KIMLIK, isValid: (m) => isKimlikNo(m[0]), score: 0.6, context: /kimlik|tckn|t\.c\.|turkish id|national id/i },
]
