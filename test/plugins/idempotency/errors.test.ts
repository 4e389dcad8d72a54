import t from 'tap'
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, InvalidIdempotencyKeyError } from '../../../plugins/idempotency/errors.ts'

t.test('each error has its status, headers and body', async (t) => {
  const cases = [
    [new InvalidIdempotencyKeyError('too long'), 400, { error: 'Invalid request: too long', message: 'too long', code: 'invalid_idempotency_key' }, {}],
    [new IdempotencyKeyReusedError(), 409, { error: 'Conflict', code: 'idempotency_key_reused' }, {}],
    [new IdempotencyKeyInUseError(2), 409, { error: 'Conflict', code: 'idempotency_key_in_use' }, { 'retry-after': '2' }],
  ] as const
  for (const [error, status, body, headers] of cases) {
    t.equal(error.status, status, error.name)
    t.match(error.toBody(), body, error.name)
    t.same(error.headers(), headers, error.name)
  }
  t.ok(new IdempotencyKeyInUseError().clientMayRetry())
})
