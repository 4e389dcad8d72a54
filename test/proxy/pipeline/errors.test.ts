import t from 'tap'
import * as errors from '../../../proxy/pipeline/errors.ts'

const cases: ReadonlyArray<[errors.GatewayError, number, Record<string, unknown>, Record<string, string>]> = [
  [
    new errors.InvalidRequestError('Invalid request: x', 'x is wrong', [{ path: 'x', message: 'x is wrong' }]),
    400,
    { error: 'Invalid request: x', message: 'x is wrong', code: 'invalid_request', issues: [{ path: 'x', message: 'x is wrong' }] },
    {},
  ],
  [new errors.PermissionError('no'), 403, { error: 'API key lacks required permissions', message: 'no', code: 'insufficient_permissions' }, {}],
  [new errors.NotFoundError('gone'), 404, { error: 'Not found', message: 'gone', code: 'not_found' }, {}],
  [new errors.MethodNotAllowedError(['GET', 'POST']), 405, { error: 'Method not allowed', message: 'Use GET, POST on this path.' }, { allow: 'GET, POST' }],
  [new errors.PayloadTooLargeError(10), 413, { error: 'Request body too large', message: 'The body exceeds the limit of 10 bytes.' }, {}],
  [new errors.UnsupportedMediaTypeError(), 415, { error: 'Unsupported media type' }, {}],
  [new errors.InternalError(), 500, { error: 'Internal server error', code: 'internal_error' }, {}],
  [new errors.UpstreamError('down', true), 502, { error: 'Upstream error', message: 'down', code: 'upstream_error' }, {}],
  [new errors.UpstreamInvalidJsonError(), 502, { error: 'Upstream returned invalid JSON', code: 'upstream_invalid_json' }, {}],
  [new errors.OverloadedError('busy', 2), 503, { error: 'Service overloaded', message: 'busy', code: 'overloaded' }, { 'retry-after': '2' }],
  [new errors.UpstreamTimeoutError('slow'), 504, { error: 'Upstream timeout', message: 'slow', code: 'upstream_timeout' }, {}],
  [new errors.ConflictError('already resolved'), 409, { error: 'Conflict', message: 'already resolved' }, {}],
]

t.test('each error class has its status, headers and body', async (t) => {
  for (const [error, status, body, headers] of cases) {
    t.equal(error.status, status, error.name)
    t.match(error.toBody(), body, error.name)
    t.same(error.headers(), headers, error.name)
    t.equal(typeof error.toBody().message, 'string')
  }
})

t.test('anything that is not a GatewayError becomes a 500 whose body hides the cause', async (t) => {
  const error = errors.toGatewayError(new Error('secret detail'))
  t.equal(error.status, 500)
  t.notMatch(JSON.stringify(error.toBody()), /secret detail/)
  t.equal((error.cause as Error).message, 'secret detail')
})
