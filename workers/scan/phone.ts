// PHONE_NUMBER, TR_PHONE_NUMBER and PH_MOBILE_NUMBER. A linear regex proposes digit groups that
// are shaped like a phone number; libphonenumber-js (full metadata) decides whether they are
// valid somewhere. Running the library's own text matcher once per region costs ~5 ms per
// region on 16 KB, so candidates are found here and only they are parsed, each distinct one
// once. A bare digit run (no "+", brackets or separators) counts as PHONE_NUMBER only next to a
// phone context word: otherwise every order number would be tried against every region.
import { parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max'
import { hasContextNear } from './context.ts'
import type { Detector, EntityType, Finding } from './types.ts'

// Regions tried for numbers written without a country code, most common first. A number with
// "+" needs no region. NANP covers US and CA.
const NATIONAL_REGIONS: readonly CountryCode[] = ['US', 'GB', 'IN', 'DE', 'FR', 'ES', 'IT', 'BR', 'IL', 'CN', 'TR', 'PH', 'AU', 'MX']

const CANDIDATE =
  /(?<![\w+\-./:@])(?:\+\s?\d{1,15}|\(\+?\d{1,5}\)|\d{1,14})(?:[ .-]{0,2}\(\d{1,5}\)|[ .\-/]{1,2}\d{1,14}){0,6}(?:\s{0,2}(?:x|ext\.?|extension)\s{0,2}\d{1,6})?(?![\w-]|\.\d)/gi
const EXTENSION = /\s{0,2}(?:x|ext\.?|extension)\s{0,2}\d{1,6}$/i
const DATE_LIKE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}|(?:1[89]|20)\d{2}\s?[-/]\s?(?:1[89]|20)\d{2})$/
const DOTTED_QUAD = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/
// The US SSN layout (3-2-4) is not a phone layout anywhere; leave it to the SSN detector.
const SSN_SHAPE = /^\d{3}([- .])\d{2}\1\d{4}$/
const NANP_SHAPE = /^(?:\+?1[ .-]?)?(?:\(\d{3}\)\s?|\d{3}[ .-])\d{3}[ .-]\d{4}$/
// Philippine mobile numbers are reported only when written with the trunk prefix 0 or +63.
const PHILIPPINE_START = /^\s*(?:0|\+\s?63)/
const TURKISH_START = /^\s*(?:\+\s?90|0?[\s.-]?\(?[2-5])/
const CONTEXT = /phone|mobile|cell|call|tel\b|telephone|contact|fax|whatsapp|number|telefon|numara|cep|telepono|numero|電話|电话/i
const MIN_DIGITS = 7
const MAX_DIGITS = 15
// Parses (10–40 µs each) one scan may spend: a text full of distinct invalid numbers would
// otherwise cost up to NATIONAL_REGIONS.length + 2 parses each. Past the budget, numbers are
// judged by their layout only (NANP_SHAPE, at the low format-only score).
const PARSE_BUDGET = 150

export const phoneDetector: Detector = {
  types: ['PHONE_NUMBER', 'TR_PHONE_NUMBER', 'PH_MOBILE_NUMBER'],
  detect(text, wanted) {
    const findings: Finding[] = []
    const verdicts = new Map<string, Verdict>()
    const budget = { parses: PARSE_BUDGET }
    const retries = { left: MAX_RETRIES }
    for (const m of text.matchAll(CANDIDATE)) {
      const start = m.index
      const inContext = hasContextNear(text, start, start + m[0].length, CONTEXT)
      const judged = (candidate: string): Verdict => {
        const main = candidate.replace(EXTENSION, '')
        const key = inContext ? `ctx ${main}` : main
        let verdict = verdicts.get(key)
        if (verdict === undefined) {
          verdict = judge(main, wanted, inContext, budget)
          verdicts.set(key, verdict)
        }
        return verdict
      }
      // A number followed by another digit group (a year, a count) is read without that group,
      // when it is written like a phone number (country code, brackets) or a context word is near.
      let candidate = m[0]
      let verdict = judged(candidate)
      const retry = inContext || /^[+(]/.test(candidate)
      for (let dropped = 0; retry && !isFound(verdict) && dropped < MAX_DROPPED_GROUPS && retries.left > 0 && TRAILING_GROUP.test(candidate); dropped++) {
        retries.left--
        candidate = candidate.replace(TRAILING_GROUP, '')
        verdict = judged(candidate)
      }
      if (!isFound(verdict)) candidate = m[0]
      const end = start + candidate.length
      const add = (type: EntityType, base: number, boosted: number): void => {
        findings.push({ type, start, end, score: inContext ? boosted : base })
      }
      if (verdict.valid) add('PHONE_NUMBER', verdict.formatted ? 0.6 : 0.4, 0.85)
      else if (verdict.nanpShaped) add('PHONE_NUMBER', 0.3, 0.6)
      if (verdict.turkish) add('TR_PHONE_NUMBER', 0.5, 0.85)
      if (verdict.philippineMobile) add('PH_MOBILE_NUMBER', 0.6, 0.85)
    }
    return findings
  },
}

// A short group (up to four digits: a year, a count) after a space; at most two are dropped.
// Groups joined by hyphens or dots are one number and are never split.
const TRAILING_GROUP = / {1,2}\d{1,4}$/
const MAX_DROPPED_GROUPS = 2
// Shorter readings tried per scan: each costs parses, and most runs of groups are not phones.
const MAX_RETRIES = 24

function isFound(verdict: Verdict): boolean {
  return verdict.valid || verdict.turkish || verdict.philippineMobile
}

interface Verdict {
  readonly valid: boolean
  readonly formatted: boolean
  readonly nanpShaped: boolean
  readonly turkish: boolean
  readonly philippineMobile: boolean
}

const REJECTED: Verdict = { valid: false, formatted: false, nanpShaped: false, turkish: false, philippineMobile: false }

interface Budget {
  parses: number
}

function spend(budget: Budget): boolean {
  budget.parses--
  return budget.parses >= 0
}

function judge(main: string, wanted: ReadonlySet<EntityType>, inContext: boolean, budget: Budget): Verdict {
  const digitCount = countDigits(main)
  if (digitCount < MIN_DIGITS || digitCount > MAX_DIGITS || !hasPhoneGrouping(main)) return REJECTED
  if (DATE_LIKE.test(main) || DOTTED_QUAD.test(main) || SSN_SHAPE.test(main)) return REJECTED
  const formatted = /[\s().\-/+]/.test(main)
  const valid = wanted.has('PHONE_NUMBER') && (formatted || inContext) && isValidSomewhere(main, budget)
  return {
    valid,
    formatted,
    nanpShaped: wanted.has('PHONE_NUMBER') && !valid && NANP_SHAPE.test(main),
    turkish: wanted.has('TR_PHONE_NUMBER') && TURKISH_START.test(main) && spend(budget) && isValidIn(main, 'TR'),
    philippineMobile: wanted.has('PH_MOBILE_NUMBER') && PHILIPPINE_START.test(main) && spend(budget) && isPhilippineMobile(main),
  }
}

/**
 * Phone numbers are written in groups of two or more digits; a single digit is a country code,
 * trunk prefix or area digit ("+33 1 42…", "+30 21 0 …"), and more than one of those after the
 * first group is a list of small numbers, not a phone number.
 */
function hasPhoneGrouping(main: string): boolean {
  const groups = main.split(/\D+/).filter((group) => group.length > 0)
  return groups.slice(1).filter((group) => group.length === 1).length <= 1
}

function countDigits(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) n++
  }
  return n
}

function parse(text: string, region: CountryCode): PhoneNumber | undefined {
  return parsePhoneNumberFromString(text, { defaultCountry: region, extract: false })
}

function isValidIn(text: string, region: CountryCode): boolean {
  const number = parse(text, region)
  if (number === undefined || !number.isValid()) return false
  return text.trimStart().startsWith('+') ? number.country === region : true
}

/** Valid with its own country code, or, written nationally, valid in one of NATIONAL_REGIONS. */
function isValidSomewhere(text: string, budget: Budget): boolean {
  if (text.trimStart().startsWith('+')) return spend(budget) && parsePhoneNumberFromString(text, { extract: false })?.isValid() === true
  return NATIONAL_REGIONS.some((region) => spend(budget) && parse(text, region)?.isValid() === true)
}

function isPhilippineMobile(text: string): boolean {
  const number = parse(text, 'PH')
  return number !== undefined && number.country === 'PH' && number.isValid() && number.getType() === 'MOBILE'
}
