// AU_ABN, AU_ACN, AU_TFN and AU_MEDICARE, each with its published weighted checksum.
import { digitAt, onlyDigits, weightedSum } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const ABN = /(?<![\d])\d{2}( ?)\d{3}\1\d{3}\1\d{3}(?![\w])/g
const NINE_DIGITS = /(?<![\d])\d{3}( ?)\d{3}\1\d{3}(?![\w])/g
const MEDICARE = /(?<![\d])[2-6]\d{3}( ?)\d{5}\1\d(?:[ /-]?[1-9])?(?![\w])/g

// ABN: subtract 1 from the first digit, weights 10,1,3,…,19, sum divisible by 89 (ATO).
function isAbn(digits: string): boolean {
  const adjusted = String(digitAt(digits, 0) - 1) + digits.slice(1)
  return digitAt(digits, 0) > 0 && weightedSum(adjusted, [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19]) % 89 === 0
}

// ACN: weights 8..1 on the first eight digits, check = (10 − sum mod 10) mod 10 (ASIC).
function isAcn(digits: string): boolean {
  return (10 - (weightedSum(digits, [8, 7, 6, 5, 4, 3, 2, 1]) % 10)) % 10 === digitAt(digits, 8)
}

// TFN: weights 1,4,3,7,5,8,6,9,10, sum divisible by 11 (ATO).
function isTfn(digits: string): boolean {
  return weightedSum(digits, [1, 4, 3, 7, 5, 8, 6, 9, 10]) % 11 === 0
}

// Medicare: weights 1,3,7,9,1,3,7,9 on the first eight digits, the ninth is the sum mod 10.
function isMedicare(digits: string): boolean {
  return weightedSum(digits, [1, 3, 7, 9, 1, 3, 7, 9]) % 10 === digitAt(digits, 8)
}

export const australiaRules: readonly IdRule[] = [
  { type: 'AU_ABN', pattern: ABN, isValid: (m) => isAbn(onlyDigits(m[0])), score: 0.5, context: /abn|australian business/i },
  { type: 'AU_ACN', pattern: NINE_DIGITS, isValid: (m) => isAcn(onlyDigits(m[0])), score: 0.4, context: /acn|australian company/i },
  { type: 'AU_TFN', pattern: NINE_DIGITS, isValid: (m) => isTfn(onlyDigits(m[0])), score: 0.4, context: /tfn|tax file/i },
  { type: 'AU_MEDICARE', pattern: MEDICARE, isValid: (m) => isMedicare(onlyDigits(m[0])), score: 0.5, context: /medicare/i },
]
