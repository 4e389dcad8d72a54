// The Governor's Prometheus metrics. Labels are fixed sets: four risk levels, three decisions,
// three scan places.
import { Counter, Histogram, type Registry } from 'prom-client'
import type { Decision } from './store/types.ts'
import type { RiskLevel } from './logic/verdict/types.ts'

/** Verdicts on requests and validations; an answer's scan is not a verdict of its own. */
type VerdictDecision = Exclude<Decision, 'withheld'>

export interface GovernorMetrics {
  countVerdict(level: RiskLevel, decision: VerdictDecision): void
  readonly scanSeconds: Histogram<'where'>
}

export function createGovernorMetrics(registry: Registry): GovernorMetrics {
  const verdicts = new Counter({
    name: 'tollgate_governor_verdicts_total',
    help: 'Governor verdicts on requests and validations, by risk level and decision (approved, review, blocked).',
    labelNames: ['risk_level', 'decision'],
    registers: [registry],
  })
  const scanSeconds = new Histogram({
    name: 'tollgate_governor_scan_seconds',
    help: 'Time to scan a request or an answer for sensitive data, by where it ran (inline, pool; stream: one window of a streamed answer under strict mode or redaction, scanned on the event loop; stream_pool: a long one, scanned in the pool, queueing included); memoized verdicts are not scanned.',
    labelNames: ['where'],
    buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
    registers: [registry],
  })
  return {
    countVerdict(level, decision) {
      verdicts.inc({ risk_level: level, decision })
    },
    scanSeconds,
  }
}
