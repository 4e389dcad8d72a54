import t from 'tap'
import { GovernorBlockedError, GovernorResponseBlockedError } from '../../../plugins/governor/errors.ts'

const violations = [{ type: 'PRIVACY', severity: 'HIGH' }]

t.test('a blocked request is a 403 whose body carries the verdict summary', async (t) => {
  const error = new GovernorBlockedError('blocked', 'aud_1', 'critical', violations)
  t.equal(error.status, 403)
  t.same(error.headers(), {})
  t.match(error.toBody(), {
    error: 'Request blocked by Governor',
    message: 'blocked',
    code: 'governor_blocked',
    auditId: 'aud_1',
    riskLevel: 'critical',
    violations,
  })
})

t.test('a stopped stream names what stopped it, never the values', async (t) => {
  const error = new GovernorResponseBlockedError('stopped', 'aud_2', 'high', violations, ['EMAIL'])
  t.equal(error.status, 403)
  t.match(error.toBody(), {
    error: 'Response blocked by Governor',
    code: 'governor_response_blocked',
    auditId: 'aud_2',
    riskLevel: 'high',
    violations,
    found: ['EMAIL'],
  })
})
