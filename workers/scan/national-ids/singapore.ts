// SG_NRIC_FIN: S/T (citizens, PRs), F/G/M (foreigners), seven digits and a check letter from
// weights 2-7-6-5-4-3-2, an offset for the T/G (+4) and M (+3) series, and a letter table.
import { weightedSum } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const NRIC = /(?<![\w])[STFGM]\d{7}[A-Z](?![\w])/gi
const WEIGHTS = [2, 7, 6, 5, 4, 3, 2] as const
const CHECK_LETTERS: Readonly<Record<string, string>> = {
  S: 'JZIHGFEDCBA',
  T: 'JZIHGFEDCBA',
  F: 'XWUTRQPNMLK',
  G: 'XWUTRQPNMLK',
  M: 'XWUTRQPNJLK',
}
const OFFSETS: Readonly<Record<string, number>> = { T: 4, G: 4, M: 3 }

function isNricFin(value: string): boolean {
  const upper = value.toUpperCase()
  const series = upper[0] as string
  const remainder = (weightedSum(upper.slice(1, 8), WEIGHTS) + (OFFSETS[series] ?? 0)) % 11
  return CHECK_LETTERS[series]?.[remainder] === upper[8]
}

export const singaporeRules: readonly IdRule[] = [
  { type: 'SG_NRIC_FIN', pattern: NRIC, isValid: (m) => isNricFin(m[0]), score: 0.8, context: /nric|\bfin\b|singapore/i },
]
