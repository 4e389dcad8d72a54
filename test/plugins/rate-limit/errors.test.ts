import t from 'tap'
import type { GatewayError } from '../../../proxy/pipeline/errors.ts'
import { RateLimitedError } from '../../../plugins/rate-limit/errors.ts'

const cases: ReadonlyArray<[GatewayError, number, Record<string, unknown>, Record<string, string>]> = [
  [new RateLimitedError(7), 429, { error: 'Rate limit exceeded', message: 'Retry in 7s.', code: 'rate_limited' }, { 'retry-after': '7' }],
]

t.test('a rate-limited request is a 429 that says when to retry', async (t) => {
  for (const [error, status, body, headers] of cases) {
    t.equal(error.status, status, error.name)
    t.match(error.toBody(), body, error.name)
    t.same(error.headers(), headers, error.name)
  }
})
