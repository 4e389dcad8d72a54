import t from 'tap'
import { type UpstreamError, UpstreamTimeoutError } from '../../../../proxy/pipeline/errors.ts'
import { ProviderAccountError, ProviderRefusalError } from '../../../../plugins/router/errors.ts'
import { asksLongerWait, finalFailure, isTransient, retryDelayMs, upstreamErrorOf } from '../../../../plugins/router/logic/upstream-error.ts'

t.test("a provider's 400, 404, 413, 422 and 429 keep their status; its 401, 402, 403 and an unpaid bill are the gateway's fault", async (t) => {
  for (const status of [400, 404, 413, 422, 429]) {
    const err = upstreamErrorOf('m', { status })
    t.ok(err instanceof ProviderRefusalError, `${status} is a refusal`)
    t.equal(err.status, status)
  }
  t.match(upstreamErrorOf('m', { status: 400, code: 'context_length_exceeded' }), {
    error: 'Invalid request',
    code: 'context_length_exceeded',
    retryable: false,
  })
  t.match(upstreamErrorOf('m', { status: 429 }), { error: 'Rate limit exceeded', code: 'upstream_rate_limited', retryable: true })
  for (const provider of [
    { status: 401 },
    { status: 402 },
    { status: 403 },
    { status: 429, code: 'insufficient_quota' },
    { status: 429, type: 'insufficient_quota' },
  ]) {
    const err = upstreamErrorOf('m', provider)
    t.ok(err instanceof ProviderAccountError, JSON.stringify(provider))
    t.match(err, { status: 502, code: 'upstream_account_refused', retryable: false })
    t.equal(err.clientMayRetry(), false, "no retry cures the gateway's own key")
  }
  t.match(upstreamErrorOf('m', { status: 503 }), { status: 502, retryable: true })
  t.match(upstreamErrorOf('m', { status: 405 }), { status: 502, retryable: false })
})

t.test("a 429 forwards the provider's retry-after", async (t) => {
  t.same(upstreamErrorOf('m', { status: 429, retryAfterMs: 1500 }).headers(), { 'retry-after': '2', 'retry-after-ms': '1500' })
  t.same(upstreamErrorOf('m', { status: 429 }).headers(), {})
})

t.test('the client may retry only a transient failure the gateway did not retry itself', async (t) => {
  const once = upstreamErrorOf('m', { status: 500 })
  t.equal(finalFailure(once, 1), once)
  t.equal(once.clientMayRetry(), true)
  const thrice = finalFailure(upstreamErrorOf('m', { status: 500 }), 3) as UpstreamError
  t.equal(thrice.clientMayRetry(), false)
  const limited = finalFailure(upstreamErrorOf('m', { status: 429 }), 1) as UpstreamError
  t.equal(limited.clientMayRetry(), true)
  t.equal((finalFailure(new UpstreamTimeoutError('slow'), 2) as UpstreamTimeoutError).clientMayRetry(), false)
  t.equal(upstreamErrorOf('m', { status: 400 }).clientMayRetry(), false)
  const bug = new Error('bug')
  t.equal(finalFailure(bug, 3), bug)
})

t.test('a wait longer than the longest backoff is left to the client; a shorter one is waited here', async (t) => {
  const wait = (ms: number) => upstreamErrorOf('m', { status: 429, retryAfterMs: ms })
  t.equal(asksLongerWait(wait(5000), 2000), true)
  t.equal(asksLongerWait(wait(2000), 2000), false)
  t.equal(asksLongerWait(upstreamErrorOf('m', { status: 500 }), 2000), false)
  t.equal(retryDelayMs(wait(1500), 200), 1500)
  t.equal(retryDelayMs(wait(100), 200), 200)
  t.equal(retryDelayMs(upstreamErrorOf('m', { status: 500 }), 200), 200)
  t.equal(isTransient(upstreamErrorOf('m', { status: 409 })), true)
  t.equal(isTransient(upstreamErrorOf('m', { status: 422 })), false)
  t.equal(isTransient(new UpstreamTimeoutError('slow')), true)
})
