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
          if (!rule.isValid(m)) continue
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

/** A capture group's text, or '' when the group did not take part in the match. */
export function group(match: RegExpExecArray, index: number): string {
  return match[index] ?? ''
}
