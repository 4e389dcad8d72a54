// DE_TAX_ID (Steuer-IdNr), DE_VAT_ID (USt-IdNr), DE_PASSPORT, DE_HEALTH_INSURANCE (KVNR),
// DE_SOCIAL_SECURITY (Rentenversicherungsnummer) and DE_LANR (lifelong doctor number).
import { crossSum, digitAt, icaoCheckDigit, iso7064Mod11Check, onlyDigits, weightedSum } from '../checksums.ts'
import { isDateInEitherCentury } from './calendar.ts'
import { group, type IdRule } from './rule.ts'

const TAX_ID = /(?<![\d])[1-9]\d{10}(?![\w])/g
const VAT_ID = /(?<![\w])DE[ \-.]?\d{3}[ \-.]?\d{3}[ \-.]?\d{3}(?![\w])/gi
// Passport serials use digits and the letters C F G H J K L M N P R T V W X Y Z (no vowels, no
// look-alikes); the ninth character is the ICAO 9303 check digit of the first eight.
const PASSPORT = /(?<![\w])[CFGHJK][CFGHJKLMNPRTVWXYZ\d]{7}\d(?![\w])/gi
const HEALTH_INSURANCE = /(?<![\w])[A-Z]\d{9}(?![\w])/gi
const SOCIAL_SECURITY = /(?<![\d])(\d{2})(\d{2})(\d{2})(\d{2})([A-Z])(\d{2})(\d)(?![\w])/gi
const LANR = /(?<![\d])\d{9}(?![\w])/g

function letterAsTwoDigits(letter: string): string {
  return String(letter.charCodeAt(0) - 64).padStart(2, '0')
}

// KVNR: the letter as two digits plus the first eight digits, weights 1-2-1-2…, products reduced
// to their digit sum; the sum mod 10 is the check digit (GKV-Spitzenverband, § 290 SGB V).
function isHealthInsuranceNumber(value: string): boolean {
  const digits = letterAsTwoDigits(value[0] as string) + value.slice(1, 9)
  let sum = 0
  for (let i = 0; i < digits.length; i++) sum += crossSum(digitAt(digits, i) * (i % 2 === 0 ? 1 : 2))
  return sum % 10 === digitAt(value, 9)
}

// Rentenversicherungsnummer: area, birth date DDMMYY, surname initial, serial, check digit.
// Weights 2-1-2-5-7-1-2-1-2-1-2-1 over the twelve digits, digit sums added, mod 10 (DRV). When
// the serials of one birth date run out the DRV adds 50 to the day, so days 51–81 occur.
const SOCIAL_SECURITY_WEIGHTS = [2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1] as const

function isSocialSecurityNumber(m: RegExpExecArray): boolean {
  const [area, dd, mm, yy, initial, serial, check] = [1, 2, 3, 4, 5, 6, 7].map((i) => group(m, i)) as [string, string, string, string, string, string, string]
  const day = Number(dd) > 50 ? Number(dd) - 50 : Number(dd)
  if (!isDateInEitherCentury(Number(yy), Number(mm), day)) return false
  const digits = area + dd + mm + yy + letterAsTwoDigits(initial.toUpperCase()) + serial
  let sum = 0
  for (let i = 0; i < digits.length; i++) sum += crossSum(digitAt(digits, i) * (SOCIAL_SECURITY_WEIGHTS[i] as number))
  return sum % 10 === Number(check)
}

// LANR: six-digit doctor number, check digit from weights 4-9-4-9-4-9, two-digit specialty.
function isLanr(digits: string): boolean {
  const check = (10 - (weightedSum(digits, [4, 9, 4, 9, 4, 9]) % 10)) % 10
  return check === digitAt(digits, 6) && digits.slice(7) !== '00'
}

export const germanyRules: readonly IdRule[] = [
  {
    type: 'DE_TAX_ID',
    pattern: TAX_ID,
    isValid: (m) => iso7064Mod11Check(m[0].slice(0, 10)) === digitAt(m[0], 10),
    score: 0.4,
    context: /steuer|idnr|identifikationsnummer|tax id|tin\b/i,
  },
  {
    type: 'DE_VAT_ID',
    pattern: VAT_ID,
    isValid: () => true,
    score: 0.5,
    confirm: (m) => {
      const digits = onlyDigits(m[0])
      return iso7064Mod11Check(digits.slice(0, 8)) === digitAt(digits, 8)
    },
    confirmedScore: 0.9,
    context: /ust|umsatzsteuer|vat/i,
  },
  {
    type: 'DE_PASSPORT',
    pattern: PASSPORT,
    isValid: (m) => icaoCheckDigit(m[0].slice(0, 8).toUpperCase()) === digitAt(m[0], 8),
    score: 0.6,
    context: /reisepass|pass(?:port)?nummer|passport/i,
  },
  {
    type: 'DE_HEALTH_INSURANCE',
    pattern: HEALTH_INSURANCE,
    isValid: (m) => isHealthInsuranceNumber(m[0].toUpperCase()),
    score: 0.6,
    context: /kvnr|krankenversicherung|krankenkasse|versicherten/i,
  },
  {
    type: 'DE_SOCIAL_SECURITY',
    pattern: SOCIAL_SECURITY,
    isValid: isSocialSecurityNumber,
    score: 0.8,
    context: /rvnr|rentenversicherung|sozialversicherung/i,
    gluedToAnyWord: true,
  },
  { type: 'DE_LANR', pattern: LANR, isValid: (m) => isLanr(m[0]), score: 0.3, context: /lanr|arzt|ärzt/i },
]
