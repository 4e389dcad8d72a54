import t from 'tap'
import type { GatewayError } from '../../../proxy/pipeline/errors.ts'
import { InvalidKeyError, MissingKeyError } from '../../../plugins/auth/errors.ts'

const cases: ReadonlyArray<[GatewayError, number, Record<string, unknown>, Record<string, string>]> = [
  [new MissingKeyError(), 401, { error: 'Missing API key', code: 'missing_api_key' }, {}],
  [new InvalidKeyError(), 401, { error: 'Invalid or inactive API key', code: 'invalid_api_key' }, {}],
]

t.test('a missing or invalid key is a 401 with its code', async (t) => {
  for (const [error, status, body, headers] of cases) {
    t.equal(error.status, status, error.name)
    t.match(error.toBody(), body, error.name)
    t.same(error.headers(), headers, error.name)
  }
})
