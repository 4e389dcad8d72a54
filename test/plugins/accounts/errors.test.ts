import t from 'tap'
import type { GatewayError } from '../../../proxy/pipeline/errors.ts'
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '../../../plugins/accounts/errors.ts'

const cases: ReadonlyArray<[GatewayError, number, Record<string, unknown>, Record<string, string>]> = [
  [new UnauthorizedError('expired'), 401, { error: 'Unauthorized', message: 'expired', code: 'unauthorized' }, {}],
  [new ForbiddenError('role'), 403, { error: 'Forbidden', message: 'role', code: 'forbidden' }, {}],
  [new TooManyRequestsError(60), 429, { error: 'Too Many Requests', code: 'too_many_requests', retry_after: 60 }, { 'retry-after': '60' }],
]

t.test('each account endpoint error has its status, headers and body', async (t) => {
  for (const [error, status, body, headers] of cases) {
    t.equal(error.status, status, error.name)
    t.match(error.toBody(), body, error.name)
    t.same(error.headers(), headers, error.name)
  }
})
