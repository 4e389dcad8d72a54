// FI_PERSONAL_IDENTITY_CODE (henkilötunnus): DDMMYY, a century sign, a three-digit individual
// number and a check character from 0123456789ABCDEFHJKLMNPRSTUVWXY[DDMMYYZZZ mod 31].
// The check character is strong enough to allow letters right before the code.
import { isCalendarDate } from './calendar.ts'
import { group, type IdRule } from './rule.ts'

const CODE = /(?<![\d])(\d{2})(\d{2})(\d{2})([-+A-FU-Y])(\d{3})([0-9A-Y])(?![\w])/gi
const CHECK_CHARACTERS = '0123456789ABCDEFHJKLMNPRSTUVWXY'

function centuryOf(sign: string): number {
  if (sign === '+') return 1800
  return 'ABCDEF'.includes(sign) ? 2000 : 1900
}

function isIdentityCode(m: RegExpExecArray): boolean {
  const [dd, mm, yy, sign, individual, check] = [1, 2, 3, 4, 5, 6].map((i) => group(m, i).toUpperCase()) as [string, string, string, string, string, string]
  if (!isCalendarDate(centuryOf(sign) + Number(yy), Number(mm), Number(dd))) return false
  return CHECK_CHARACTERS[Number(dd + mm + yy + individual) % 31] === check
}

export const finlandRules: readonly IdRule[] = [
  {
    type: 'FI_PERSONAL_IDENTITY_CODE',
    pattern: CODE,
    isValid: isIdentityCode,
    score: 0.85,
    context: /henkilötunnus|hetu|identity code|personal id/i,
    gluedToAnyWord: true,
  },
]
