// The verdict: a risk score from 0 to 100, its level, the approval and the violations, as a pure
// function of the findings, the request's metadata and the project's settings. Every point comes
// with a reason, so the sum of the reasons' points is the score. The scheme is written up in
// docs/governor.md, "Risk scoring".
import { ACTION_RISK, RISK_CLASS_POINTS } from './action-risk.ts'
import { isProtectedJurisdiction, JURISDICTION_POINTS } from './jurisdiction.ts'
import { findingSeverity } from './finding-severity.ts'
import { LEVEL_FLOORS, levelOf, MAX_SCORE, severityRank } from './levels.ts'
import { findRoleMismatch, ROLE_MISMATCH_POINTS } from './role-mismatch.ts'
import { CONFIDENT_SCORE, ENTITY_TIERS, EXTRA_FINDING_SHARE, EXTRA_FINDINGS_COUNTED } from './sensitivity.ts'
import type { Reason, ScoredFinding, Verdict, VerdictInput, VerdictViolation } from './types.ts'

interface TypeTally {
  count: number
  bestScore: number
}

/** Points for `count` findings of one kind: the first in full, each further one a share, up to a cap. */
function repeatedPoints(points: number, count: number): number {
  return points * (1 + EXTRA_FINDING_SHARE * Math.min(count - 1, EXTRA_FINDINGS_COUNTED))
}

export function computeVerdict(input: VerdictInput): Verdict {
  const reasons: Reason[] = []
  const violations: VerdictViolation[] = []
  const riskClass = ACTION_RISK[input.actionType]
  reasons.push({ code: 'action_risk', points: RISK_CLASS_POINTS[riskClass], detail: `${input.actionType} is a ${riskClass}-risk action` })

  let personalData = false
  for (const [type, tally] of tallyByType(input.findings)) {
    const tier = ENTITY_TIERS[type]
    const confident = tally.bestScore >= CONFIDENT_SCORE
    const points = Math.round(repeatedPoints(tier.points, tally.count) * (confident ? 1 : 0.5))
    const found = `${tally.count} × ${type}${confident ? '' : ' (format only, low confidence)'}`
    reasons.push({ code: tier.name, points, detail: found })
    personalData ||= tier.personal
    const severity = findingSeverity(type, tally.bestScore)
    if (severityRank(severity) >= severityRank('MEDIUM')) {
      violations.push({ category: type, type: tier.violationType, severity, count: tally.count, description: found })
    }
  }

  if (personalData && isProtectedJurisdiction(input.recipientCountry)) {
    reasons.push({
      code: 'jurisdiction',
      points: JURISDICTION_POINTS,
      detail: `personal data for a recipient in ${input.recipientCountry!.toUpperCase()} (EU/EEA/UK data protection law)`,
    })
  }

  const mismatch = findRoleMismatch(input.actionType, input.senderRole, input.department)
  if (mismatch !== undefined) {
    reasons.push({
      code: 'role_mismatch',
      points: ROLE_MISMATCH_POINTS,
      detail: `${input.actionType} from a sender whose role or department is not ${mismatch.expected}`,
    })
  }

  for (const { rule, count } of input.ruleMatches) {
    const matched = `custom rule "${rule.name}" (${count} match${count === 1 ? '' : 'es'})`
    reasons.push({ code: 'custom_rule', points: rule.weight, detail: matched })
    if (severityRank(rule.severity) >= severityRank('MEDIUM')) {
      violations.push({ category: rule.id, type: 'POLICY', severity: rule.severity, count, description: matched })
    }
  }

  const criticalFinding = violations.some((v) => v.severity === 'CRITICAL')
  let score = reasons.reduce((sum, reason) => sum + reason.points, 0)
  if (criticalFinding && score < LEVEL_FLOORS.high) {
    // A secret or special-category data is never less than high risk, however mild the rest.
    reasons.push({ code: 'critical_floor', points: LEVEL_FLOORS.high - score, detail: 'a critical finding lifts the risk to at least high' })
    score = LEVEL_FLOORS.high
  }
  if (score > MAX_SCORE) {
    reasons.push({ code: 'cap', points: MAX_SCORE - score, detail: `scores are capped at ${MAX_SCORE}` })
    score = MAX_SCORE
  }
  return {
    score,
    level: levelOf(score),
    approved: score <= input.autoApproveThreshold && !criticalFinding,
    criticalFinding,
    reasons,
    violations,
  }
}

/** Per type, in a stable order: how many findings and the best confidence among them. */
function tallyByType(findings: readonly ScoredFinding[]): Array<[ScoredFinding['type'], TypeTally]> {
  const tallies = new Map<ScoredFinding['type'], TypeTally>()
  for (const finding of findings) {
    const tally = tallies.get(finding.type)
    if (tally === undefined) tallies.set(finding.type, { count: 1, bestScore: finding.score })
    else {
      tally.count++
      tally.bestScore = Math.max(tally.bestScore, finding.score)
    }
  }
  return [...tallies].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}
