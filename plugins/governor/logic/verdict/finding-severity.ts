// The severity of one finding, as the verdict rates its type: the tier's severity, one step lower
// when only the format matched. Strict mode stops answers at HIGH and above; redaction covers
// every type whose tier opens a violation.
import type { EntityType } from '../../../../workers/scan/types.ts'
import { lowerSeverity, severityRank } from './levels.ts'
import { CONFIDENT_SCORE, ENTITY_TIERS } from './sensitivity.ts'
import type { Severity } from './types.ts'

export function findingSeverity(type: EntityType, score: number): Severity {
  const { severity } = ENTITY_TIERS[type]
  return score >= CONFIDENT_SCORE ? severity : lowerSeverity(severity)
}

/** Severities that strict mode does not let out in an answer, and that keep an answer out of the cache. */
export function isBlockingSeverity(severity: Severity): boolean {
  return severityRank(severity) >= severityRank('HIGH')
}

/**
 * Types whose values redaction replaces: personal data and secrets (tiers of MEDIUM and above,
 * whatever the confidence). A prompt-injection finding is a phrase, not a value, and stays.
 */
export function isRedactedType(type: EntityType): boolean {
  return type !== 'PROMPT_INJECTION' && severityRank(ENTITY_TIERS[type].severity) >= severityRank('MEDIUM')
}
