// IBAN_CODE: country code, two check digits and a BBAN of the length registered for that
// country (SWIFT IBAN registry), written plain or in groups of four split by one space or dash;
// the ISO 13616 mod-97 check must hold. Letters must be upper case as the standard prints them.
import { isIbanChecksumValid } from './checksums.ts'
import type { Detector, Finding } from './types.ts'

// Total IBAN length per country, as published in the SWIFT IBAN registry.
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BI: 27,
  BR: 29,
  BY: 28,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DJ: 27,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FK: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HN: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IQ: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LC: 32,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  LY: 25,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MN: 20,
  MR: 27,
  MT: 31,
  MU: 30,
  NI: 28,
  NL: 18,
  NO: 15,
  OM: 23,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  RU: 33,
  SA: 24,
  SC: 31,
  SD: 18,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  SO: 23,
  ST: 25,
  SV: 28,
  TL: 23,
  TN: 24,
  TR: 26,
  UA: 29,
  VA: 22,
  VG: 24,
  XK: 20,
}

const START = /(?<![A-Za-z0-9])([A-Z]{2})(\d{2})(?=[ -]?[A-Z0-9])/g

export const ibanDetector: Detector = {
  types: ['IBAN_CODE'],
  detect(text) {
    const findings: Finding[] = []
    START.lastIndex = 0
    for (let m = START.exec(text); m !== null; m = START.exec(text)) {
      const length = IBAN_LENGTHS[m[1] as string]
      if (length === undefined) continue
      const end = ibanEnd(text, m.index, length)
      if (end === undefined) continue
      findings.push({ type: 'IBAN_CODE', start: m.index, end, score: 1 })
      START.lastIndex = end
    }
    return findings
  },
}

/**
 * Reads `length` IBAN characters from `start`, either contiguous or in groups of four with one
 * consistent separator, and returns the end offset when the result is a complete, valid IBAN.
 */
function ibanEnd(text: string, start: number, length: number): number | undefined {
  const next = text[start + 4]
  const separator = next === ' ' || next === '-' ? next : undefined
  let compact = ''
  let pos = start
  while (compact.length < length && pos < text.length) {
    const ch = text[pos] as string
    if (isIbanChar(ch)) {
      compact += ch
      pos++
    } else if (ch === separator && compact.length % 4 === 0 && isIbanChar(text[pos + 1] ?? '')) {
      pos++
    } else {
      return undefined
    }
  }
  if (compact.length !== length || /[A-Za-z0-9]/.test(text[pos] ?? '')) return undefined
  return isIbanChecksumValid(compact) ? pos : undefined
}

function isIbanChar(ch: string): boolean {
  return (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')
}
