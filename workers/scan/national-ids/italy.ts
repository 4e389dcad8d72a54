// IT_FISCAL_CODE (codice fiscale): surname and name letters, birth year, month letter, day (+40
// for women), municipality code and a check letter (DM 23/12/1976). Digits may be replaced by
// the letters LMNPQRSTUV when two people would otherwise share a code (omocodia). The layout is
// specific enough to report at a low score; a correct check letter confirms it.
import type { IdRule } from './rule.ts'

const DIGIT_OR_OMOCODE = '[\\dLMNPQRSTUV]'
const FISCAL_CODE = new RegExp(`(?<![\\w])[A-Z]{6}${DIGIT_OR_OMOCODE}{2}[ABCDEHLMPRST]${DIGIT_OR_OMOCODE}{2}[A-Z]${DIGIT_OR_OMOCODE}{3}[A-Z](?![\\w])`, 'gi')
// Values of characters in odd (1st, 3rd, …) positions, indexed by digit or letter A–Z.
const ODD_VALUES = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23] as const

function checkLetter(code: string): string {
  let sum = 0
  for (let i = 0; i < 15; i++) {
    const c = code.charCodeAt(i)
    const index = c <= 57 ? c - 48 : c - 65
    sum += i % 2 === 0 ? (ODD_VALUES[index] as number) : index
  }
  return String.fromCharCode(65 + (sum % 26))
}

export const italyRules: readonly IdRule[] = [
  {
    type: 'IT_FISCAL_CODE',
    pattern: FISCAL_CODE,
    isValid: () => true,
    score: 0.4,
    confirm: (m) => {
      const code = m[0].toUpperCase()
      return checkLetter(code) === code[15]
    },
    confirmedScore: 0.9,
    context: /codice fiscale|fiscal|\bcf\b|tax code/i,
  },
]
