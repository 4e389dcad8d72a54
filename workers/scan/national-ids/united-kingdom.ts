// UK_NHS (mod 11 check digit) and UK_NINO (HMRC prefix and suffix rules).
import { digitAt, isRepeatedChar, onlyDigits, weightedSum } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const NHS = /(?<![\d-])\d{3}([- ]?)\d{3}\1\d{4}(?![\w-])/g
const NHS_WEIGHTS = [10, 9, 8, 7, 6, 5, 4, 3, 2] as const

// NHS Data Dictionary: 11 − (weighted sum mod 11); 11 becomes 0 and 10 means the number is invalid.
function isNhsNumber(digits: string): boolean {
  if (isRepeatedChar(digits)) return false
  const check = 11 - (weightedSum(digits, NHS_WEIGHTS) % 11)
  if (check === 10) return false
  return (check === 11 ? 0 : check) === digitAt(digits, 9)
}

// First letter never D, F, I, Q, U or V; second never D, F, I, O, Q, U or V; some pairs are not
// allocated (HMRC National Insurance Manual NIM39110).
const NINO = /(?<![\w])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![\w])/gi
const UNALLOCATED_PREFIXES = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ'])

export const unitedKingdomRules: readonly IdRule[] = [
  {
    type: 'UK_NHS',
    pattern: NHS,
    isValid: (m) => isNhsNumber(onlyDigits(m[0])),
    score: 0.5,
    context: /nhs|health service|patient|medical/i,
  },
  {
    type: 'UK_NINO',
    pattern: NINO,
    isValid: (m) => !UNALLOCATED_PREFIXES.has(m[0].slice(0, 2).toUpperCase()),
    score: 0.6,
    context: /nino|national insurance|\bni\b|insurance number/i,
  },
]
