// CA_SIN: nine digits, Luhn-valid; 0 and 8 are never the first digit (CRA).
import { isLuhnValid, onlyDigits } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const DELIMITED = /(?<![\d-])[1-79]\d{2}([- ])\d{3}\1\d{3}(?![\w-])/g
const PLAIN = /(?<![\d-])[1-79]\d{8}(?![\w-])/g
const CONTEXT = /\bsin\b|social insurance|\bnas\b|assurance sociale/i

export const canadaRules: readonly IdRule[] = [
  { type: 'CA_SIN', pattern: DELIMITED, isValid: (m) => isLuhnValid(onlyDigits(m[0])), score: 0.5, context: CONTEXT },
  { type: 'CA_SIN', pattern: PLAIN, isValid: (m) => isLuhnValid(m[0]), score: 0.1, context: CONTEXT },
]
