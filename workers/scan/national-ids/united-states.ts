// US_SSN, US_ITIN, US_NPI, US_MBI and ABA_ROUTING_NUMBER.
import { isLuhnValid, isRepeatedChar, onlyDigits, weightedSum } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const DELIMITED_NINE = /(?<![\d\-.])\d{3}([- .])\d{2}\1\d{4}(?![\w-]|\.\d)/g
const LOOSE_NINE = /(?<![\d\-.])(?:\d{3}-\d{6}|\d{5}-\d{4}|\d{9})(?![\w-]|\.\d)/g

// Numbers the SSA never issues or that were published as samples (Woolworth's wallet card
// 078-05-1120, the SSA pamphlet's 219-09-9999, the "123-45-6789" placeholder), as in Presidio's
// UsSsnRecognizer.invalidate_result.
const SAMPLE_SSNS = new Set(['123456789', '078051120', '219099999', '457555462'])

function isPlausibleSsn(digits: string): boolean {
  if (digits.length !== 9 || isRepeatedChar(digits) || SAMPLE_SSNS.has(digits)) return false
  const area = digits.slice(0, 3)
  if (area === '000' || area === '666' || area.startsWith('9')) return false
  return digits.slice(3, 5) !== '00' && digits.slice(5) !== '0000'
}

// ITINs start with 9 and have group 50–65, 70–88, 90–92 or 94–99 (IRS, since 2011).
function isItin(digits: string): boolean {
  if (digits.length !== 9 || !digits.startsWith('9')) return false
  const group = Number(digits.slice(3, 5))
  return (group >= 50 && group <= 65) || (group >= 70 && group <= 88) || (group >= 90 && group <= 92) || group >= 94
}

const SSN_CONTEXT = /ssn|social security|social sec|ss#|ss no/i
const ITIN_CONTEXT = /itin|taxpayer|tax id|individual taxpayer/i

const NPI = /(?<![\d-])[12]\d{3}([- ]?)\d{3}\1\d{3}(?![\w-])/g
// The NPI check digit is Luhn over the number prefixed with 80840 (ISO 7812 card issuer prefix).
const NPI_PREFIX = '80840'

// MBI letters exclude S, L, O, I, B and Z (CMS MBI format specification).
const MBI_LETTER = '[AC-HJKMNP-RT-Y]'
const MBI = new RegExp(`(?<![\\d\\-])[1-9]${MBI_LETTER}[AC-HJKMNP-RT-Y\\d]\\d-?${MBI_LETTER}[AC-HJKMNP-RT-Y\\d]\\d-?${MBI_LETTER}{2}\\d{2}(?![\\w\\-])`, 'gi')

const ABA = /(?<![\d-])\d{4}(-?)\d{4}\1\d(?![\w-])/g
const ABA_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1] as const

// Federal Reserve routing symbol prefixes: 00–12 (banks), 21–32 (thrifts), 61–72 (electronic), 80 (traveller's cheques).
function isAbaRoutingNumber(digits: string): boolean {
  const prefix = Number(digits.slice(0, 2))
  const inRange = prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80
  return inRange && !isRepeatedChar(digits) && weightedSum(digits, ABA_WEIGHTS) % 10 === 0
}

export const unitedStatesRules: readonly IdRule[] = [
  { type: 'US_SSN', pattern: DELIMITED_NINE, isValid: (m) => isPlausibleSsn(onlyDigits(m[0])), score: 0.5, context: SSN_CONTEXT },
  { type: 'US_SSN', pattern: LOOSE_NINE, isValid: (m) => isPlausibleSsn(onlyDigits(m[0])), score: 0.05, context: SSN_CONTEXT },
  { type: 'US_ITIN', pattern: DELIMITED_NINE, isValid: (m) => isItin(onlyDigits(m[0])), score: 0.5, context: ITIN_CONTEXT },
  { type: 'US_ITIN', pattern: LOOSE_NINE, isValid: (m) => isItin(onlyDigits(m[0])), score: 0.05, context: ITIN_CONTEXT },
  {
    type: 'US_NPI',
    pattern: NPI,
    isValid: (m) => isLuhnValid(NPI_PREFIX + onlyDigits(m[0])),
    score: 0.5,
    context: /npi|provider|national provider/i,
  },
  {
    type: 'US_MBI',
    pattern: MBI,
    isValid: (m) => [0, 2].includes(m[0].split('-').length - 1),
    score: 0.6,
    context: /mbi|medicare|beneficiary/i,
  },
  {
    type: 'ABA_ROUTING_NUMBER',
    pattern: ABA,
    isValid: (m) => isAbaRoutingNumber(onlyDigits(m[0])),
    score: 0.3,
    context: /routing|aba|transit|rtn|bank/i,
  },
]
