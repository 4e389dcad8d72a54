import t from 'tap'
import fc from 'fast-check'
import { applyCountChanges, computeComplianceScore, NO_OPEN_VIOLATIONS, type OpenCounts } from '../../../../plugins/governor/logic/compliance-score.ts'
import { SEVERITIES } from '../../../../plugins/governor/logic/verdict/types.ts'

const violation = fc.record({ severity: fc.constantFrom(...SEVERITIES), status: fc.constantFrom('open' as const, 'resolved' as const) })

t.test('the score the routes compute is the score the running counts announce', async () => {
  fc.assert(
    fc.property(fc.array(violation, { maxLength: 40 }), (violations) => {
      let counts: OpenCounts = NO_OPEN_VIOLATIONS
      let announced = 100
      for (const { severity, status } of violations) {
        if (status !== 'open') continue
        const { after, scoreChanged } = applyCountChanges(counts, [{ severity, delta: 1 }])
        counts = after
        if (scoreChanged !== undefined) announced = scoreChanged.score as number
      }
      const computed = computeComplianceScore(violations)
      return computed.score === announced && JSON.stringify(computed.openViolations) === JSON.stringify(counts)
    }),
  )
})

t.test('a score never goes below 0', async (t) => {
  t.equal(computeComplianceScore(Array.from({ length: 6 }, () => ({ severity: 'CRITICAL' as const, status: 'open' as const }))).score, 0)
  t.same(applyCountChanges(NO_OPEN_VIOLATIONS, [{ severity: 'CRITICAL', delta: 1 }]).scoreChanged, {
    previous_score: 100,
    score: 80,
    open_violations: { ...NO_OPEN_VIOLATIONS, CRITICAL: 1 },
  })
})
