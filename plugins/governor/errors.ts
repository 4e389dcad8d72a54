// The Governor's refusals: a request blocked in strict mode, and a streamed answer stopped part way.
import { GatewayError } from '../../proxy/pipeline/errors.ts'

interface BlockedViolation {
  readonly type: string
  readonly severity: string
}

/** Strict mode with a high or critical risk; the body carries the verdict's summary. */
export class GovernorBlockedError extends GatewayError {
  readonly status = 403
  readonly error: string = 'Request blocked by Governor'
  readonly code: string = 'governor_blocked'
  readonly auditId: string
  readonly riskLevel: string
  readonly violations: readonly BlockedViolation[]
  constructor(message: string, auditId: string, riskLevel: string, violations: readonly BlockedViolation[]) {
    super(message)
    this.auditId = auditId
    this.riskLevel = riskLevel
    this.violations = violations
  }
  override extra() {
    return { auditId: this.auditId, riskLevel: this.riskLevel, violations: this.violations }
  }
}

/**
 * Strict mode stopped a streamed answer: what had been checked was sent, the rest (with the
 * finding) was not. Sent as the stream's `error` event; `found` names the entity types (or custom
 * rule ids) that stopped it, never their values.
 */
export class GovernorResponseBlockedError extends GovernorBlockedError {
  override readonly error = 'Response blocked by Governor'
  override readonly code = 'governor_response_blocked'
  readonly found: readonly string[]
  constructor(message: string, auditId: string, riskLevel: string, violations: readonly BlockedViolation[], found: readonly string[]) {
    super(message, auditId, riskLevel, violations)
    this.found = found
  }
  override extra() {
    return { ...super.extra(), found: this.found }
  }
}
