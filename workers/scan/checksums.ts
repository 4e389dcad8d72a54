// Check-digit algorithms shared by the detectors. Inputs are plain digit (or alphanumeric)
// strings with separators already removed; callers check lengths and character sets first.
import { createHash } from 'node:crypto'

export function digitAt(text: string, index: number): number {
  return text.charCodeAt(index) - 48
}

export function onlyDigits(text: string): string {
  return text.replace(/\D+/g, '')
}

/** Luhn (ISO/IEC 7812-1): payment cards, CA SIN, ZA ID, US NPI, SE personnummer. */
export function isLuhnValid(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digitAt(digits, i)
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return digits.length > 0 && sum % 10 === 0
}

/** Sum of digit × weight over the first weights.length digits. */
export function weightedSum(digits: string, weights: readonly number[]): number {
  let sum = 0
  for (let i = 0; i < weights.length; i++) sum += digitAt(digits, i) * (weights[i] as number)
  return sum
}

/** ISO 13616 IBAN check: move the first four characters to the end, letters to 10..35, mod 97 = 1. */
export function isIbanChecksumValid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4)
  let remainder = 0
  for (let i = 0; i < rearranged.length; i++) {
    const code = rearranged.charCodeAt(i)
    if (code >= 48 && code <= 57) remainder = (remainder * 10 + (code - 48)) % 97
    else if (code >= 65 && code <= 90) remainder = (remainder * 100 + (code - 55)) % 97
    else return false
  }
  return remainder === 1
}

/** ISO 7064 MOD 11,10: German tax id (Steuer-IdNr) and VAT id. */
export function iso7064Mod11Check(digits: string): number {
  let product = 10
  for (let i = 0; i < digits.length; i++) {
    let sum = (digitAt(digits, i) + product) % 10
    if (sum === 0) sum = 10
    product = (sum * 2) % 11
  }
  const check = 11 - product
  return check === 10 ? 0 : check
}

const VERHOEFF_MULTIPLY = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
] as const
const VERHOEFF_PERMUTE = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
] as const

/** Verhoeff dihedral-group checksum: Indian Aadhaar. */
export function isVerhoeffValid(digits: string): boolean {
  let c = 0
  for (let i = 0; i < digits.length; i++) {
    const d = digitAt(digits, digits.length - 1 - i)
    const permuted = VERHOEFF_PERMUTE[i % 8]?.[d] ?? 0
    c = VERHOEFF_MULTIPLY[c]?.[permuted] ?? 0
  }
  return c === 0
}

/** ICAO 9303 check digit (weights 7, 3, 1): passports and German identity cards. */
export function icaoCheckDigit(text: string): number {
  const weights = [7, 3, 1]
  let sum = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    const value = code >= 48 && code <= 57 ? code - 48 : code >= 65 && code <= 90 ? code - 55 : 0
    sum += value * (weights[i % 3] as number)
  }
  return sum % 10
}

/** Sum of the decimal digits of n (used by several "multiply and add the digits" schemes). */
export function crossSum(n: number): number {
  let sum = 0
  for (let v = n; v > 0; v = Math.floor(v / 10)) sum += v % 10
  return sum
}

/** True when every character of the string is the same (0000000000, 1111111111…). */
export function isRepeatedChar(text: string): boolean {
  for (let i = 1; i < text.length; i++) if (text[i] !== text[0]) return false
  return true
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

/** Base58Check (Bitcoin): the last four bytes equal the first four of double SHA-256. */
export function isBase58CheckValid(text: string): boolean {
  let value = 0n
  for (let i = 0; i < text.length; i++) {
    const digit = BASE58_ALPHABET.indexOf(text[i] as string)
    if (digit < 0) return false
    value = value * 58n + BigInt(digit)
  }
  let hex = value.toString(16)
  if (hex.length % 2 === 1) hex = `0${hex}`
  let leadingZeros = 0
  while (leadingZeros < text.length && text[leadingZeros] === '1') leadingZeros++
  const bytes = Buffer.concat([Buffer.alloc(leadingZeros), Buffer.from(value === 0n ? '' : hex, 'hex')])
  if (bytes.length < 5) return false
  const payload = bytes.subarray(0, bytes.length - 4)
  const checksum = bytes.subarray(bytes.length - 4)
  const first = createHash('sha256').update(payload).digest()
  const second = createHash('sha256').update(first).digest()
  return second.subarray(0, 4).equals(checksum)
}

const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
const BECH32_GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3] as const
const BECH32_CONSTANT = 1
const BECH32M_CONSTANT = 0x2bc830a3

/** BIP-173 / BIP-350 checksum of a lowercase bech32 or bech32m string ("bc1…"). */
export function isBech32Valid(text: string): boolean {
  const separator = text.lastIndexOf('1')
  if (separator < 1 || separator + 7 > text.length) return false
  const prefix = text.slice(0, separator)
  const values: number[] = []
  for (let i = 0; i < prefix.length; i++) values.push(prefix.charCodeAt(i) >> 5)
  values.push(0)
  for (let i = 0; i < prefix.length; i++) values.push(prefix.charCodeAt(i) & 31)
  for (let i = separator + 1; i < text.length; i++) {
    const v = BECH32_CHARSET.indexOf(text[i] as string)
    if (v < 0) return false
    values.push(v)
  }
  let checksum = 1
  for (const v of values) {
    const top = checksum >>> 25
    checksum = ((checksum & 0x1ffffff) << 5) ^ v
    for (let bit = 0; bit < 5; bit++) if ((top >>> bit) & 1) checksum ^= BECH32_GENERATOR[bit] as number
  }
  checksum >>>= 0
  return checksum === BECH32_CONSTANT || checksum === BECH32M_CONSTANT
}
