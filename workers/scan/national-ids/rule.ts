// A national identifier is a pattern plus a validity check (checksum, date, allowed ranges).
// Rules are data; idRulesDetector runs the ones whose type was asked for.
import { hasContextNear } from '../context.ts'
import type { Detector, EntityType, Finding } from '../types.ts'

export interface IdRule {
  readonly type: EntityType
  /** Global regex whose whole match is the identifier. Must be linear: bounded repeats only. */
  readonly pattern: RegExp
  readonly isValid: (match: RegExpExecArray) => boolean
  /** Score without context: high for strong checksums, low for formats any number could have. */
  readonly score: number
  /**
   * For identifiers whose check digit is optional or not always issued (synthetic test numbers
   * often lack it): a match that also passes this check gets confirmedScore instead of score.
   */
  readonly confirm?: (match: RegExpExecArray) => boolean
  readonly confirmedScore?: number
  /** Words that, near the match, make it much more likely to be this identifier. */
  readonly context: RegExp
  /**
   * The format has structure digits alone lack (a century sign, a letter inside) and a strong
   * check, so it may be glued to any word before it ("is030594…"), not only to its label.
   */
  readonly gluedToAnyWord?: true
}

/** Presidio's context enhancement: a context word adds 0.35, and lifts the score to at least 0.4. */
function boostedScore(base: number): number {
  return Math.min(1, Math.max(0.4, base + 0.35))
}

export function idRulesDetector(rules: readonly IdRule[]): Detector {
  const types = [...new Set(rules.map((rule) => rule.type))]
  return {
    types,
    detect(text, wanted) {
      const findings: Finding[] = []
      for (const rule of rules) {
        if (!wanted.has(rule.type)) continue
        for (const m of text.matchAll(rule.pattern)) {
          if (!rule.isValid(m) || (rule.gluedToAnyWord !== true && !labelFits(text, m.index, rule.context))) continue
          const start = m.index
          const end = start + m[0].length
          const base = rule.confirm?.(m) === true ? (rule.confirmedScore ?? rule.score) : rule.score
          const score = hasContextNear(text, start, end, rule.context) ? boostedScore(base) : base
          findings.push({ type: rule.type, start, end, score })
        }
      }
      return findings
    },
  }
}

const GLUED_WORD = /[A-Za-z_]{1,24}$/

/**
 * Identifiers that start with a digit may be written glued to the word before them ("SSN078…",
 * "tckn1000…"); then that word must be the identifier's own label (a context word), otherwise the
 * digits are part of some other token (an order code, a hash) and not an identifier. Letters of
 * other scripts before the digits were never taken as part of a word and still are not.
 */
function labelFits(text: string, start: number, context: RegExp): boolean {
  const glued = GLUED_WORD.exec(text.slice(Math.max(0, start - 24), start))
  return glued === null || context.test(glued[0])
}

/** A capture group's text, or '' when the group did not take part in the match. */
export function group(match: RegExpExecArray, index: number): string {
  return match[index] ?? ''
}
