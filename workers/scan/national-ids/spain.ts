// ES_NIF (DNI number + control letter) and ES_NIE (X/Y/Z + seven digits + control letter). The
// control letter is TRWAGMYFPDXBNJZSQVHLCKE[number mod 23] (Real Decreto 1553/2005).
import type { IdRule } from './rule.ts'

const CONTROL_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE'
const NIF = /(?<![\d])(\d{7,8})-?([A-Za-z])(?![\w])/g
const NIE = /(?<![\w])([XYZxyz])(\d{7})-?([A-Za-z])(?![\w])/g
const CONTEXT = /nif|\bdni\b|\bnie\b|documento|identificaci[oó]n|extranjero/i

function hasControlLetter(number: string, letter: string): boolean {
  return CONTROL_LETTERS[Number(number) % 23] === letter.toUpperCase()
}

export const spainRules: readonly IdRule[] = [
  { type: 'ES_NIF', pattern: NIF, isValid: (m) => hasControlLetter(m[1] as string, m[2] as string), score: 0.7, context: CONTEXT },
  {
    type: 'ES_NIE',
    pattern: NIE,
    isValid: (m) => hasControlLetter('XYZ'.indexOf((m[1] as string).toUpperCase()) + (m[2] as string), m[3] as string),
    score: 0.8,
    context: CONTEXT,
  },
]
