// SE_PERSONNUMMER: (CC)YYMMDD, an optional "-" or "+", three digits and a Luhn check digit over
// the ten-digit form. Day + 60 marks a coordination number (samordningsnummer).
import { isLuhnValid } from '../checksums.ts'
import { isCalendarDate, isDateInEitherCentury } from './calendar.ts'
import { group, type IdRule } from './rule.ts'

const PERSONNUMMER = /(?<![\d-])(1[89]|20)?(\d{2})(\d{2})(\d{2})([-+]?)(\d{4})(?![\w-])/g

function isPersonnummer(m: RegExpExecArray): boolean {
  const [century, yy, mm, dd, serial] = [1, 2, 3, 4, 6].map((i) => group(m, i)) as [string, string, string, string, string]
  const day = Number(dd) > 60 ? Number(dd) - 60 : Number(dd)
  const dateOk = century === '' ? isDateInEitherCentury(Number(yy), Number(mm), day) : isCalendarDate(Number(century + yy), Number(mm), day)
  return dateOk && isLuhnValid(yy + mm + dd + serial)
}

export const swedenRules: readonly IdRule[] = [
  { type: 'SE_PERSONNUMMER', pattern: PERSONNUMMER, isValid: isPersonnummer, score: 0.5, context: /personnummer|pnr|samordningsnummer|personal identity/i },
]
