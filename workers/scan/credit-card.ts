// CREDIT_CARD: 13–19 digits, written plain or in groups split by one kind of separator, with an
// issuer prefix (IIN) that exists and a valid Luhn check digit. Digit groups are read as a run
// ("4111 1111 1111 1111 123", "… 12 2027", two cards one after the other) and every stretch of
// consecutive groups that makes a card is reported, the longest first from the left, so a CVV,
// an expiry year or a second card next to a number does not hide it.
import { isLuhnValid } from './checksums.ts'
import { scoreWithContext } from './context.ts'
import type { Detector, Finding } from './types.ts'

// A run of digit groups separated by single spaces or hyphens (bounded, so matching stays linear).
const RUN = /(?<![\w\-.,/])\d{1,19}(?:[ \-]\d{1,19}){0,11}(?![\w\-/]|[.,]\d)/g
const GROUP = /\d+/g
const CONTEXT = /card|visa|master|amex|credit|debit|payment|cc\b|kart|tarjeta|carte|karte|信用卡/i
// Issuer prefixes from the ISO/IEC 7812 registry as published by the card networks: Visa 4,
// Mastercard 51–55 and 2221–2720, Amex 34/37, Diners 30/36/38/39, Discover 6011/644–649/65,
// JCB 3528–3589, UnionPay 62/81, Maestro 50/56–69, UATP 1, Mir 2200–2204, RuPay 60/65/81/82/508.
const ISSUER = /^(?:4|5\d|2(?:22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|220[0-4]|3[04-9]|6|8[12]|1)/
const MAX_GROUPS_PER_CARD = 5

interface Group {
  readonly start: number
  readonly end: number
  readonly digits: string
}

export const creditCardDetector: Detector = {
  types: ['CREDIT_CARD'],
  detect(text) {
    const findings: Finding[] = []
    for (const run of text.matchAll(RUN)) {
      const groups = [...run[0].matchAll(GROUP)].map((g): Group => ({ start: run.index + g.index, end: run.index + g.index + g[0].length, digits: g[0] }))
      for (const card of cardsIn(text, groups)) {
        findings.push({ type: 'CREDIT_CARD', start: card.start, end: card.end, score: scoreWithContext(text, card.start, card.end, CONTEXT, 0.9, 1) })
      }
    }
    return findings
  },
}

/** Stretches of consecutive groups that form a card: from each group, the longest one; then on after it. */
function cardsIn(text: string, groups: readonly Group[]): { start: number; end: number }[] {
  const cards: { start: number; end: number }[] = []
  let i = 0
  while (i < groups.length) {
    const last = longestCardFrom(text, groups, i)
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
function longestCardFrom(text: string, groups: readonly Group[], first: number): number | undefined {
  const fourByFour = first + 3 < groups.length && groups.slice(first, first + 4).every((g) => g.digits.length === 4)
  if (fourByFour && isGroupedCard(text, groups, first, first + 3)) return first + 3
  const lastPossible = Math.min(groups.length - 1, first + MAX_GROUPS_PER_CARD - 1)
  for (let last = lastPossible; last >= first; last--) {
    if (isGroupedCard(text, groups, first, last)) return last
  }
  return undefined
}

/** One plain number, or groups after a four-digit first group, of 2–6 digits, split by one kind of separator. */
function isGroupedCard(text: string, groups: readonly Group[], first: number, last: number): boolean {
  let digits = groups[first]!.digits
  if (last > first) {
    if (digits.length !== 4) return false
    const separator = text[groups[first]!.end]
    for (let k = first + 1; k <= last; k++) {
      const group = groups[k]!
      if (group.digits.length < 2 || group.digits.length > 6 || text[group.start - 1] !== separator) return false
      digits += group.digits
    }
  }
  return isCardNumber(digits)
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
