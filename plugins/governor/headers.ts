// The spec's x-governor-* response headers for a verdict.
import type { Verdict } from './verdict/types.ts'

export function governorHeaders(verdict: Verdict, auditId: string): Record<string, string> {
  return {
    'x-governor-validated': 'true',
    'x-governor-approved': String(verdict.approved),
    'x-governor-risk-level': verdict.level,
    'x-governor-risk-score': String(verdict.score),
    'x-governor-violations': String(verdict.violations.length),
    'x-governor-audit-id': auditId,
  }
}
