// TH_TNIN (Thai national ID): thirteen digits, first digit 1–8 (person category), then the code
// of the registering province, and a check digit (11 − Σ dᵢ·(13 − i) mod 11) mod 10.
import { digitAt } from '../checksums.ts'
import type { IdRule } from './rule.ts'

const TNIN = /(?<![\d])[1-8]\d{12}(?![\w])/g

// Province codes of the Department of Provincial Administration (also ISO 3166-2:TH): 10–27,
// 30–49, 50–58, 60–67, 70–77, 80–86, 90–96.
function isProvinceCode(code: number): boolean {
  return [
    [10, 27],
    [30, 49],
    [50, 58],
    [60, 67],
    [70, 77],
    [80, 86],
    [90, 96],
  ].some(([low, high]) => code >= (low as number) && code <= (high as number))
}

function isTnin(d: string): boolean {
  if (!isProvinceCode(Number(d.slice(1, 3)))) return false
  let sum = 0
  for (let i = 0; i < 12; i++) sum += digitAt(d, i) * (13 - i)
  return (11 - (sum % 11)) % 10 === digitAt(d, 12)
}

export const thailandRules: readonly IdRule[] = [
  { type: 'TH_TNIN', pattern: TNIN, isValid: (m) => isTnin(m[0]), score: 0.5, context: /thai|national id|บัตรประชาชน|เลขประจำตัว/i },
]
