// The `data` of the events the Governor's records emit. The spec gives the fields of
// violation.detected and alert.created; the others follow the same pattern (the record's id under
// `<kind>_id`, snake_case fields). Descriptions and messages name types and counts, never values.
import type { Alert, Case, Violation } from '../store/types.ts'

export function violationData(violation: Violation): Record<string, unknown> {
  return {
    violation_id: violation.id,
    type: violation.type,
    severity: violation.severity,
    description: violation.description,
    status: violation.status,
    case_id: violation.caseId,
  }
}

export function alertData(alert: Alert): Record<string, unknown> {
  return { alert_id: alert.id, severity: alert.severity, title: alert.title, message: alert.message, status: alert.status }
}

export function caseData(found: Case): Record<string, unknown> {
  return { case_id: found.id, title: found.title, status: found.status, severity: found.severity, violation_ids: found.violationIds }
}
