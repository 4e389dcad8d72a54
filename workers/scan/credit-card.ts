// CREDIT_CARD: 13–19 digits, written plain or in groups split by one kind of separator, with an
// issuer prefix (IIN) that exists and a valid Luhn check digit.
import { isLuhnValid } from './checksums.ts'
import { scoreWithContext } from './context.ts'
import type { Detector, Finding } from './types.ts'

const CANDIDATE = /(?<![\w\-.,/])(?:\d{13,19}|\d{4}([ \-])\d{2,6}(?:\1\d{2,6}){1,3})(?![\w\-/]|[.,]\d)/g
const CONTEXT = /card|visa|master|amex|credit|debit|payment|cc\b|kart|tarjeta|carte|karte|信用卡/i
// Issuer prefixes from the ISO/IEC 7812 registry as published by the card networks: Visa 4,
// Mastercard 51–55 and 2221–2720, Amex 34/37, Diners 30/36/38/39, Discover 6011/644–649/65,
// JCB 3528–3589, UnionPay 62/81, Maestro 50/56–69, UATP 1, Mir 2200–2204, RuPay 60/65/81/82/508.
const ISSUER = /^(?:4|5\d|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|220[0-4]|3[04-9]|6|8[12]|1)/

export const creditCardDetector: Detector = {
  types: ['CREDIT_CARD'],
  detect(text) {
    const findings: Finding[] = []
    for (const m of text.matchAll(CANDIDATE)) {
      if (!isCardNumber(m[0].replace(/\D+/g, ''))) continue
      const start = m.index
      const end = start + m[0].length
      findings.push({ type: 'CREDIT_CARD', start, end, score: scoreWithContext(text, start, end, CONTEXT, 0.9, 1) })
    }
    return findings
  },
}

function isCardNumber(digits: string): boolean {
  const lengths = lengthsFor(digits)
  return lengths.includes(digits.length) && isLuhnValid(digits)
}

// Lengths each network issues (a 13-digit number starting with 1 is not a UATP card, which has 15).
function lengthsFor(digits: string): readonly number[] {
  if (!ISSUER.test(digits)) return []
  if (digits.startsWith('4')) return [13, 16, 19]
  if (digits.startsWith('34') || digits.startsWith('37') || digits.startsWith('1')) return [15]
  if (/^(?:5[1-5]|2[2-7])/.test(digits)) return [16]
  return [14, 15, 16, 17, 18, 19]
}
