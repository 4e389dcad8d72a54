// CREDIT_CARD: 13–19 digits, written plain or in groups split by one kind of separator, with an
// issuer prefix (IIN) that exists and a valid Luhn check digit. Groups are read as a run
// ("4111 1111 1111 1111 123", "… 12 2027", two cards one after the other) and every stretch of
// consecutive groups that makes a card is reported, the longest first from the left, so a CVV,
// an expiry year or a second card next to a number does not hide it. The separator is whatever
// links digit groups (digit-groups.ts): a model writes a card a group per line, a tab or several
// blanks apart, with dots, slashes or underscores, or one digit per space; the same separator
// must stand between all of a card's groups.
import { isLuhnValid } from './checksums.ts'
import { scoreWithContext } from './context.ts'
import { digitRuns, type DigitGroup } from './digit-groups.ts'
import type { Detector, Finding } from './types.ts'

const CONTEXT = /card|visa|master|amex|credit|debit|payment|cc\b|kart|tarjeta|carte|karte|信用卡/i
// Issuer prefixes from the ISO/IEC 7812 registry as published by the card networks: Visa 4,
// Mastercard 51–55 and 2221–2720, Amex 34/37, Diners 30/36/38/39, Discover 6011/644–649/65,
// JCB 3528–3589, UnionPay 62/81, Maestro 50/56–69, UATP 1, Mir 2200–2204, RuPay 60/65/81/82/508.
const ISSUER = /^(?:4|5\d|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|220[0-4]|3[04-9]|6|8[12]|1)/
const MAX_GROUPS_PER_CARD = 5
const MIN_CARD_DIGITS = 13
const MAX_CARD_DIGITS = 19
// A number glued to a word, a version, a path or a longer number is none of a card's groups.
const ATTACHED_BEFORE = /[\w\-.,/]/
const ATTACHED_AFTER = /[\w\-/]/

export const creditCardDetector: Detector = {
  types: ['CREDIT_CARD'],
  detect(text) {
    const findings: Finding[] = []
    for (const run of digitRuns(text)) {
      for (const card of cardsIn(freeStretch(text, run))) {
        findings.push({ type: 'CREDIT_CARD', start: card.start, end: card.end, score: scoreWithContext(text, card.start, card.end, CONTEXT, 0.9, 1) })
      }
    }
    return findings
  },
}

/**
 * The run without the groups at its ends that are attached to what surrounds them: a card begins
 * after a blank, a line break or the text's start, and ends before one or before sentence
 * punctuation. Inside a run linked by blanks a card may still begin or end at any group.
 */
function freeStretch(text: string, run: readonly DigitGroup[]): readonly DigitGroup[] {
  let first = 0
  let last = run.length - 1
  while (first <= last && run[first]!.start > 0 && ATTACHED_BEFORE.test(text[run[first]!.start - 1]!)) first++
  while (last >= first && isAttachedAfter(text, run[last]!.end)) last--
  return run.slice(first, last + 1)
}

function isAttachedAfter(text: string, end: number): boolean {
  const next = text[end]
  if (next === undefined) return false
  return ATTACHED_AFTER.test(next) || ((next === '.' || next === ',') && isDigitAt(text, end + 1))
}

/** Stretches of consecutive groups that form a card: from each group, the longest one; then on after it. */
function cardsIn(groups: readonly DigitGroup[]): { start: number; end: number }[] {
  const cards: { start: number; end: number }[] = []
  let i = 0
  while (i < groups.length) {
    const last = longestCardFrom(groups, i)
    if (last === undefined) {
      i++
      continue
    }
    cards.push({ start: groups[i]!.start, end: groups[last]!.end })
    i = last + 1
  }
  return cards
}

// Four groups of four are how nearly every card is written; when they make a card, a group after
// them is taken for a CVV or a year rather than the tail of a rarer 19-digit number.
function longestCardFrom(groups: readonly DigitGroup[], first: number): number | undefined {
  if (groups[first]!.digits.length === 1) return digitPerSeparatorCard(groups, first)
  const fourByFour = first + 3 < groups.length && groups.slice(first, first + 4).every((g) => g.digits.length === 4)
  if (fourByFour && isGroupedCard(groups, first, first + 3)) return first + 3
  const lastPossible = Math.min(groups.length - 1, first + MAX_GROUPS_PER_CARD - 1)
  for (let last = lastPossible; last >= first; last--) {
    if (isGroupedCard(groups, first, last)) return last
  }
  return undefined
}

/** One plain number, or groups after a four-digit first group, of 2–6 digits, split by one kind of separator. */
function isGroupedCard(groups: readonly DigitGroup[], first: number, last: number): boolean {
  let digits = groups[first]!.digits
  if (last > first) {
    if (digits.length !== 4) return false
    const separator = groups[first + 1]!.separator
    for (let k = first + 1; k <= last; k++) {
      const group = groups[k]!
      if (group.digits.length < 2 || group.digits.length > 6 || group.separator !== separator) return false
      digits += group.digits
    }
  }
  return isCardNumber(digits)
}

/**
 * A card written one digit per separator ("4 1 1 1 …"): the whole stretch of single digits split by
 * that separator is the card, never a part of it, since a longer list of small numbers holds
 * some stretch that passes Luhn.
 */
function digitPerSeparatorCard(groups: readonly DigitGroup[], first: number): number | undefined {
  const separator = groups[first + 1]?.separator
  if (separator === undefined || (first > 0 && isSingleDigitAfter(groups, first, separator))) return undefined
  let last = first
  while (last - first < MAX_CARD_DIGITS && last + 1 < groups.length && isSingleDigitAfter(groups, last + 1, separator)) last++
  const count = last - first + 1
  if (count < MIN_CARD_DIGITS || count > MAX_CARD_DIGITS) return undefined
  let digits = ''
  for (let k = first; k <= last; k++) digits += groups[k]!.digits
  return isCardNumber(digits) ? last : undefined
}

function isSingleDigitAfter(groups: readonly DigitGroup[], at: number, separator: string): boolean {
  const group = groups[at]!
  return group.digits.length === 1 && group.separator === separator
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

function isDigitAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at)
  return code >= 48 && code <= 57
}
