import t from 'tap'
import { UpstreamError } from '../../../proxy/pipeline/errors.ts'
import { parseAnswer, providerError, streamError } from '../../../plugins/router/providers/provider-error.ts'
import { caught } from './fixtures.ts'

t.test("reads the error message out of each provider's error body", async (t) => {
  t.equal(
    providerError('openai', 400, '{"error":{"message":"Bad temperature","type":"invalid_request_error"}}', 'k').message,
    'openai answered 400: Bad temperature',
  )
  t.equal(
    providerError('anthropic', 529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'k').message,
    'anthropic answered 529: Overloaded',
  )
  t.equal(providerError('mistral', 401, '{"message":"Unauthorized","request_id":"r1"}', 'k').message, 'mistral answered 401: Unauthorized')
  t.equal(providerError('mistral', 422, '{"detail":[{"loc":["body","model"],"msg":"Field required"}]}', 'k').message, 'mistral answered 422: Field required')
  t.equal(providerError('openai', 502, '<html>Bad gateway</html>', 'k').message, 'openai answered 502')
})

t.test("keeps the provider's status, error type, code and param, when they look like identifiers", async (t) => {
  t.same(
    providerError('openai', 400, '{"error":{"message":"m","type":"invalid_request_error","param":"messages[0].content","code":"invalid_value"}}', 'k').provider,
    { status: 400, type: 'invalid_request_error', code: 'invalid_value', param: 'messages[0].content' },
  )
  t.same(providerError('openai', 400, '{"error":{"message":"m","param":"my name is Ann Smith"}}', 'k').provider, { status: 400 }, 'a free text is not a param')
  t.same(providerError('anthropic', 529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'k').provider, {
    status: 529,
    type: 'overloaded_error',
  })
  t.same(providerError('mistral', 422, '{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"}]}', 'k').provider, {
    status: 422,
    type: 'missing',
  })
  t.same(providerError('mistral', 400, '{"object":"error","message":"m","type":"invalid_request","code":3051}', 'k').provider, {
    status: 400,
    type: 'invalid_request',
    code: '3051',
  })
  t.same(
    providerError('openai', 400, '{"error":{"message":"m","type":"my card is 4111 1111 1111 1111"}}', 'k').provider,
    { status: 400 },
    'a free text is not an identifier',
  )
  t.same(providerError('openai', 502, '<html>Bad gateway</html>', 'k').provider, { status: 502 })
  t.same(streamError('openai', { error: { type: 'server_error', code: 'overloaded', message: 'x' } }, 'k').provider, {
    type: 'server_error',
    code: 'overloaded',
  })
})

t.test('marks 408, 409, 429 and 5xx as retryable and other statuses as final', async (t) => {
  t.same(
    [400, 401, 403, 404, 408, 409, 422, 429, 500, 503, 529].map((status) => providerError('openai', status, '', 'k').retryable),
    [false, false, false, false, true, true, false, true, true, true, true],
  )
})

t.test('reads the wait a provider asks for from retry-after-ms, or retry-after in seconds or as a date', async (t) => {
  const waitOf = (headers: Record<string, string>) => providerError('openai', 429, '', 'k', headers).provider?.retryAfterMs
  t.equal(waitOf({ 'retry-after': '7' }), 7000)
  t.equal(waitOf({ 'retry-after': '0.5' }), 500)
  t.equal(waitOf({ 'retry-after-ms': '1500', 'retry-after': '2' }), 1500, 'the finer figure first')
  const inAMinute = waitOf({ 'retry-after': new Date(Date.now() + 60_000).toUTCString() }) ?? 0
  t.ok(inAMinute > 50_000 && inAMinute <= 60_000, `an HTTP date: ${inAMinute} ms`)
  t.equal(waitOf({ 'retry-after': 'soon' }), undefined)
  t.equal(waitOf({ 'retry-after': '-3' }), undefined)
  t.equal(waitOf({ 'retry-after': '99999999999' }), 24 * 3600_000, 'capped at a day')
  t.equal(waitOf({}), undefined)
})

t.test('redacts the configured key and anything key-like, and shortens long messages', async (t) => {
  const key = 'a1b2c3d4e5f6g7h8'
  const message = providerError('mistral', 401, JSON.stringify({ message: `Key ${key} or sk-proj-abcdefgh1234 is not valid` }), key).message
  t.equal(message, 'mistral answered 401: Key [redacted] or [redacted] is not valid')
  const long = providerError('openai', 400, JSON.stringify({ error: { message: 'x'.repeat(1000) } }), key).message
  t.ok(long.length < 350)
  t.match(long, /…$/)
})

t.test('treats overloaded and server errors inside a stream as transient, others as final', async (t) => {
  t.match(streamError('anthropic', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'k'), {
    retryable: true,
    message: 'anthropic reported an error in its stream: Overloaded',
  })
  t.match(streamError('openai', { error: { type: 'invalid_request_error', message: 'Nope' } }, 'k'), { retryable: false })
})

t.test('refuses an answer that is not a JSON object with a non-retryable UpstreamError', async (t) => {
  t.same(parseAnswer('openai', '{"ok":true}'), { ok: true })
  for (const text of ['not json', 'null', '42', '"text"', '']) {
    const err = await caught((async () => parseAnswer('openai', text))())
    t.ok(err instanceof UpstreamError, text)
    t.match(err, { retryable: false, message: 'openai sent an answer that is not a JSON object.' })
  }
})
