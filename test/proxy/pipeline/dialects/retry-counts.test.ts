// The gateway's retries and the SDK's do not multiply: against a provider that always fails, one
// client call with the SDK's default retries (maxRetries 2) makes 3 provider calls, not 3 × 3.
import t from 'tap'
import { countingFetch, rejectsWith, startDialectGateway } from './fixtures.ts'
import { anthropicSdk, openAiSdk } from './sdk-calls.ts'

for (const sdk of [openAiSdk, anthropicSdk]) {
  t.test(`a 500-always provider is called 3 times per client call, not 9 (${sdk.name}, maxRetries 2)`, async (t) => {
    const gw = await startDialectGateway(t)
    gw.mock.fail('server-error', 100)
    const counted = countingFetch()
    const err = await rejectsWith(t, sdk.create(gw, counted.fetch, false), sdk.errors.server)
    t.equal(err?.status, 502)
    t.equal(err?.headers?.get('x-should-retry'), 'false', 'the gateway has retried already')
    t.equal(counted.count(), 1, 'the SDK does not retry on top of the gateway')
    t.equal(gw.mock.requests.length, 3, "the gateway's first try and 2 retries")
  })

  t.test(`a 429-always provider is called 3 times per client call, not 9 (${sdk.name}, maxRetries 2)`, async (t) => {
    for (const retryAfterS of [0, 1]) {
      const gw = await startDialectGateway(t, { mock: { rateLimitRetryAfterS: retryAfterS } })
      gw.mock.fail('rate-limit', 100)
      const counted = countingFetch()
      const err = await rejectsWith(t, sdk.create(gw, counted.fetch, false), sdk.errors.rateLimit)
      t.equal(err?.status, 429)
      t.equal(err?.headers?.get('retry-after'), String(retryAfterS))
      t.equal(gw.mock.requests.length, 3, `retry-after ${retryAfterS}: 3 provider calls in all`)
      // A wait the gateway's backoff covers is the gateway's to retry; a longer one, the client's.
      t.equal(counted.count(), retryAfterS === 0 ? 1 : 3, `retry-after ${retryAfterS}: who retried`)
    }
  })
}
