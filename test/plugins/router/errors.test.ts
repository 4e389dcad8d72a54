import t from 'tap'
import type { GatewayError } from '../../../proxy/pipeline/errors.ts'
import { DeploymentsCoolingError, ProviderAccountError, ProviderRefusalError } from '../../../plugins/router/errors.ts'

const cases: ReadonlyArray<[GatewayError, number, Record<string, unknown>, Record<string, string>]> = [
  [new DeploymentsCoolingError('openai', 20), 503, { error: 'Service unavailable', code: 'upstream_cooling' }, { 'retry-after': '20' }],
  [
    new ProviderRefusalError('too long', { status: 400, code: 'context_length_exceeded' }),
    400,
    { error: 'Invalid request', code: 'context_length_exceeded' },
    {},
  ],
  [
    new ProviderRefusalError('slow down', { status: 429, retryAfterMs: 1500 }),
    429,
    { error: 'Rate limit exceeded', code: 'upstream_rate_limited' },
    { 'retry-after': '2', 'retry-after-ms': '1500' },
  ],
  [new ProviderAccountError('bad key', { status: 401 }), 502, { error: 'Upstream error', code: 'upstream_account_refused' }, {}],
]

t.test('each router error has its status, headers and body', async (t) => {
  for (const [error, status, body, headers] of cases) {
    t.equal(error.status, status, error.name)
    t.match(error.toBody(), body, error.name)
    t.same(error.headers(), headers, error.name)
  }
})
