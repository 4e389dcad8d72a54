// Score bands and the order of levels and severities.
import { RISK_LEVELS, SEVERITIES, type RiskLevel, type Severity } from './types.ts'

export const MAX_SCORE = 100
/** Lowest score of each level above low. */
export const LEVEL_FLOORS = { medium: 30, high: 60, critical: 80 } as const

export function levelOf(score: number): RiskLevel {
  if (score >= LEVEL_FLOORS.critical) return 'critical'
  if (score >= LEVEL_FLOORS.high) return 'high'
  if (score >= LEVEL_FLOORS.medium) return 'medium'
  return 'low'
}

export function levelRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level)
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity)
}

export function highestSeverity(severities: readonly Severity[]): Severity | undefined {
  let highest: Severity | undefined
  for (const severity of severities) if (highest === undefined || severityRank(severity) > severityRank(highest)) highest = severity
  return highest
}

/** One step down, for findings whose format matched but nothing else supports them. */
export function lowerSeverity(severity: Severity): Severity {
  return SEVERITIES[Math.max(0, severityRank(severity) - 1)]!
}

/** Strict mode blocks these levels. */
export function isBlockingLevel(level: RiskLevel): boolean {
  return levelRank(level) >= levelRank('high')
}
