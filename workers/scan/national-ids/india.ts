// IN_AADHAAR (twelve digits, first 2–9, Verhoeff check digit) and IN_GSTIN (state code, PAN,
// entity number, "Z", mod-36 check character; the format alone is distinctive enough to report
// at a low score, a correct check character confirms it).
import { isVerhoeffValid, onlyDigits } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const AADHAAR = /(?<![\d])[2-9]\d{3}([ \-:]?)\d{4}\1\d{4}(?![\w])/g
const GSTIN = /(?<![\w])(?:0[1-9]|[1-3]\d)[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z](?![\w])/gi
const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'

// GSTN check character: values in base 36, factors 1 and 2 alternating, each product split
// into quotient and remainder by 36 and both added; check = (36 − sum mod 36) mod 36.
function hasGstinCheckCharacter(gstin: string): boolean {
  let sum = 0
  for (let i = 0; i < 14; i++) {
    const product = BASE36.indexOf(gstin[i] as string) * (i % 2 === 0 ? 1 : 2)
    sum += Math.floor(product / 36) + (product % 36)
  }
  return BASE36[(36 - (sum % 36)) % 36] === gstin[14]
}

export const indiaRules: readonly IdRule[] = [
  { type: 'IN_AADHAAR', pattern: AADHAAR, isValid: (m) => isVerhoeffValid(onlyDigits(m[0])), score: 0.6, context: /aadhaar|aadhar|uidai|आधार/i },
  {
    type: 'IN_GSTIN',
    pattern: GSTIN,
    isValid: () => true,
    score: 0.4,
    confirm: (m) => hasGstinCheckCharacter(m[0].toUpperCase()),
    confirmedScore: 0.9,
    context: /gstin|gst/i,
  },
]
