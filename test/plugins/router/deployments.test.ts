// A provider served by several deployments, end to end with the official openai client and two
// mock upstreams: requests spread by weight under a seed, and a deployment that fails or answers
// 429 rests until the manual clock passes its retry-after or the configured cooldown.
import OpenAI from 'openai'
import t from 'tap'
import { KEYS, ask, counter, gatewayWith, mocks, twoDeployments } from './deployment-fixtures.ts'

t.test('spreads requests over the deployments by weight, the same way for the same seed', async (t) => {
  const [a, b] = await mocks(t)
  const { openai, url } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b, [3, 1]) }, balancing: { seed: 42 } })
  const total = 400
  for (let batch = 0; batch < total; batch += 20) {
    await Promise.all(Array.from({ length: 20 }, (_, i) => ask(openai, `Question ${batch + i}`)))
  }
  t.equal(a.requests.length + b.requests.length, total)
  // Weight 3 to 1: 300 expected on a; a binomial's standard deviation here is under 9.
  t.ok(Math.abs(a.requests.length - 300) <= 40, `a got ${a.requests.length} of ${total}, about three quarters`)
  t.equal(a.requests[0]?.headers.authorization, `Bearer ${KEYS.KEY_A}`, 'each deployment is called with its own key')
  t.equal(b.requests[0]?.headers.authorization, `Bearer ${KEYS.KEY_B}`)
  t.equal(await counter(url, 'tollgate_deployment_requests_total', 'a'), a.requests.length)
  t.equal(await counter(url, 'tollgate_deployment_requests_total', 'b'), b.requests.length)

  const [c, d] = await mocks(t)
  const again = await gatewayWith(t, { providers: { openai: twoDeployments(c, d, [3, 1]) }, balancing: { seed: 42 } })
  for (let i = 0; i < 40; i++) await ask(again.openai, `Question ${i}`)
  const first = await gatewayWith(t, { providers: { openai: twoDeployments(a, b, [3, 1]) }, balancing: { seed: 42 } })
  const before = a.requests.length
  for (let i = 0; i < 40; i++) await ask(first.openai, `Question ${i}`)
  t.equal(a.requests.length - before, c.requests.length, 'the same seed sends the same requests to the same deployments')
})

t.test('a deployment that answers 429 rests until its retry-after has passed on the clock, and the request is served by another', async (t) => {
  const [a, b] = await mocks(t, { rateLimitRetryAfterS: 30 })
  const { openai, url, clock } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b) }, balancing: { seed: 1, cooldownMs: 600_000 } })
  a.fail('rate-limit')
  let asked = 0
  while (a.requests.length === 0) {
    const { data } = await ask(openai, `Before ${asked++}`)
    t.equal(data.choices[0]?.message.content, `Echo: Before ${asked - 1}`, 'every request is answered')
    if (asked > 50) throw new Error('deployment a was never chosen')
  }
  t.equal(await counter(url, 'tollgate_deployment_cooldowns_total', 'a'), 1)
  t.equal(await counter(url, 'tollgate_deployment_errors_total', 'a'), 1)

  for (let i = 0; i < 20; i++) await ask(openai, `Resting ${i}`)
  t.equal(a.requests.length, 1, 'no request reaches a resting deployment')

  clock.advance(29_000)
  for (let i = 0; i < 10; i++) await ask(openai, `Still resting ${i}`)
  t.equal(a.requests.length, 1, 'its retry-after, not the longer configured cooldown, and not a second less')

  clock.advance(1_000)
  for (let i = 0; i < 40 && a.requests.length === 1; i++) await ask(openai, `Recovered ${i}`)
  t.ok(a.requests.length > 1, 'it is back once the clock passes its retry-after')
})

t.test('when every deployment rests, the request gets a retryable 503 with the time until the first is back', async (t) => {
  const [a, b] = await mocks(t)
  const { openai, clock } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b) }, balancing: { seed: 3, cooldownMs: 20_000 } })
  a.fail('server-error')
  b.fail('server-error')
  try {
    await ask(openai, 'Anyone there?')
    t.fail('expected a 503')
  } catch (err) {
    t.ok(err instanceof OpenAI.InternalServerError)
    const error = err as InstanceType<typeof OpenAI.InternalServerError>
    t.equal(error.status, 503)
    t.equal(error.headers.get('retry-after'), '20')
  }
  t.equal(a.requests.length + b.requests.length, 2, 'each deployment was tried once, then rested')
  clock.advance(20_000)
  const { data } = await ask(openai, 'And now?')
  t.equal(data.choices[0]?.message.content, 'Echo: And now?')
})

t.test('a stream that a deployment fails to open is opened on another, and the failed one rests', async (t) => {
  const [a, b] = await mocks(t)
  // So small a weight on b that a opens the stream, under this seed.
  const { openai, url } = await gatewayWith(t, { providers: { openai: twoDeployments(a, b, [1, 0.001]) }, balancing: { seed: 5 } })
  a.fail('server-error')
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Stream it' }] })
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
  t.equal(text, 'Echo: Stream it')
  t.equal(await counter(url, 'tollgate_deployment_cooldowns_total', 'a'), 1, 'the deployment that failed rests')
  t.equal(a.requests.length, 1)
  t.equal(b.requests.length, 1)
})

t.test('a deployment whose key the provider refuses rests for minutes, and the request is served by another', async (t) => {
  const [a, b] = await mocks(t)
  const revoked = { deployments: [{ name: 'a', baseUrl: a.url, apiKeyEnv: 'KEY_REVOKED', weight: 1 }, twoDeployments(a, b).deployments[1]] }
  const { openai, url, clock } = await gatewayWith(t, { providers: { openai: revoked }, balancing: { seed: 1, cooldownMs: 1_000 } }, undefined, {
    KEY_REVOKED: 'sk-invalid-revoked-0123',
  })
  let asked = 0
  while (a.requests.length === 0) {
    const { data } = await ask(openai, `Before ${asked++}`)
    t.equal(data.choices[0]?.message.content, `Echo: Before ${asked - 1}`, 'every request is answered')
    if (asked > 50) throw new Error('deployment a was never chosen')
  }
  t.equal(await counter(url, 'tollgate_deployment_cooldowns_total', 'a'), 1, 'the refused deployment rests')
  clock.advance(60_000)
  for (let i = 0; i < 20; i++) await ask(openai, `Resting ${i}`)
  t.equal(a.requests.length, 1, 'a minute on, far past the cooldown for failures, it still rests')
  clock.advance(5 * 60_000)
  for (let i = 0; i < 40 && a.requests.length === 1; i++) await ask(openai, `Tried again ${i}`)
  t.ok(a.requests.length > 1, 'it is tried again once its rest is over')
})

t.test('when the only deployment left serving the model refuses its key, the client is told the provider refused the account', async (t) => {
  const [a, b] = await mocks(t)
  const revoked = {
    deployments: [
      { name: 'a', baseUrl: a.url, apiKeyEnv: 'KEY_REVOKED', weight: 1 },
      { name: 'b', baseUrl: b.url, apiKeyEnv: 'KEY_REVOKED', weight: 1 },
    ],
  }
  const { openai } = await gatewayWith(t, { providers: { openai: revoked }, balancing: { seed: 1, cooldownMs: 1_000 } }, undefined, {
    KEY_REVOKED: 'sk-invalid-revoked-0123',
  })
  const refused = await ask(openai, 'Hello').then(
    () => undefined,
    (err: unknown) => err,
  )
  t.match(refused, { status: 502, error: { code: 'upstream_account_refused' } })
  t.equal(a.requests.length + b.requests.length, 2, 'each deployment was tried once')
})
