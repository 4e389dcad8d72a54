// The spec's x-governor-* response headers for a verdict, and the two that report the answer's
// own scan (trailers on a stream, since they are known only at its end).
import type { Verdict } from './verdict/types.ts'

const OUTPUT_VIOLATIONS_HEADER = 'x-governor-output-violations'
const OUTPUT_RISK_LEVEL_HEADER = 'x-governor-output-risk-level'
export const OUTPUT_HEADERS = [OUTPUT_VIOLATIONS_HEADER, OUTPUT_RISK_LEVEL_HEADER] as const

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

export function outputHeaders(verdict: Verdict): Record<string, string> {
  return { [OUTPUT_VIOLATIONS_HEADER]: String(verdict.violations.length), [OUTPUT_RISK_LEVEL_HEADER]: verdict.level }
}
