// A provider's refusals reach the client as the provider meant them, through the official SDKs with
// their default retries, JSON and streamed: a 4xx keeps its status (and the SDK its error class), a
// 429 its retry-after, and x-should-retry says whether one more try can help.
import t from 'tap'
import type { FaultKind } from '../../../helpers/mock-upstream.ts'
import { countingFetch, rejectsWith, startDialectGateway } from './fixtures.ts'
import { anthropicSdk, openAiSdk, type Sdk } from './sdk-calls.ts'

const refusals: ReadonlyArray<{ readonly fault: FaultKind; readonly status: number; readonly error: keyof Sdk['errors'] }> = [
  { fault: 'bad-request', status: 400, error: 'badRequest' },
  { fault: 'not-found', status: 404, error: 'notFound' },
  { fault: 'unprocessable', status: 422, error: 'unprocessable' },
]

for (const sdk of [openAiSdk, anthropicSdk]) {
  for (const stream of [false, true]) {
    const how = `${sdk.name}${stream ? ', streamed' : ''}`

    t.test(`a provider's 400, 404 and 422 keep their status and SDK error class, tried once; a 429 its retry-after (${how})`, async (t) => {
      const gw = await startDialectGateway(t, { mock: { rateLimitRetryAfterS: 7 } })
      for (const { fault, status, error } of refusals) {
        gw.mock.fail(fault)
        const sent = gw.mock.requests.length
        const counted = countingFetch()
        const err = await rejectsWith(t, sdk.create(gw, counted.fetch, stream), sdk.errors[error], `${fault}: ${sdk.errors[error].name}`)
        t.equal(err?.status, status, `${fault}: status ${status}`)
        t.equal(err?.headers?.get('x-should-retry'), 'false', `${fault}: the SDK is told not to retry`)
        t.equal(counted.count(), 1, `${fault}: the SDK sent it once`)
        t.equal(gw.mock.requests.length - sent, 1, `${fault}: the provider was called once`)
      }

      gw.mock.fail('rate-limit')
      const sent = gw.mock.requests.length
      const err = await rejectsWith(t, sdk.create(gw, fetch, stream, 0), sdk.errors.rateLimit)
      t.equal(err?.status, 429)
      t.equal(err?.headers?.get('retry-after'), '7', "the provider's retry-after is forwarded")
      t.equal(err?.headers?.get('retry-after-ms'), '7000')
      t.equal(err?.headers?.get('x-should-retry'), 'true', 'one try so far: the client may retry after the wait')
      t.equal(gw.mock.requests.length - sent, 1, "a wait longer than the gateway's longest backoff is left to the client")
    })
  }
}
