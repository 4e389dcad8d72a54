// compliance.score_changed: inside every transaction that opens or resolves violations, the
// project's score over the last 30 days (GET /api/compliance/score's default) is recomputed and,
// when it moved, announced once with its previous value. The announced score is stored, so the
// event fires once per change however many processes share the store.
import type { EventOutbox } from '../../../proxy/events.ts'
import { computeComplianceScore } from './compliance-score.ts'
import type { GovernorDatabases } from './databases.ts'
import { ID_PREFIXES, idAtTime } from './ids.ts'

const PERIOD_MS = 30 * 86_400_000

export function announceScoreChange(dbs: GovernorDatabases, events: EventOutbox, projectId: string, nowMs: number): void {
  const recent = dbs.violations.getRange({
    start: [projectId, idAtTime('violation', nowMs - PERIOD_MS)],
    end: [projectId, `${ID_PREFIXES.violation}~`],
  }).map(({ value }) => value)
  const { score, openViolations } = computeComplianceScore(recent)
  const previous = dbs.scores.get(projectId) ?? 100
  if (score === previous) return
  dbs.scores.put(projectId, score)
  events.emit('compliance.score_changed', projectId, { previous_score: previous, score, period: 'month', open_violations: openViolations })
}
