// Counters on the request path are bound once per label set: a request adds to numbers of its
// own, which reach prom-client when the registry is read, so the scrape shows exactly what a
// prom-client inc per request would have, and the request calls no prom-client counter at all.
import { Counter, Gauge, Registry } from 'prom-client'
import t, { type Test } from 'tap'
import { request } from 'undici'
import { hello } from '../helpers/http.ts'
import { startMockedGateway } from '../helpers/mocked-gateway.ts'
import { boundCounter, createMetrics } from '../../proxy/metrics.ts'

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.split(' ').at(-1))
}

t.test('a bound counter shows its increments when read, and a label set only once counted', async (t) => {
  const registry = new Registry()
  const { bind } = boundCounter({ name: 'test_things_total', help: 'things', labelNames: ['kind'], registers: [registry] })
  const red = bind({ kind: 'red' })
  bind({ kind: 'blue' })
  red.inc()
  red.inc(2.5)
  let text = await registry.metrics()
  t.equal(sample(text, 'test_things_total{kind="red"}'), 3.5)
  t.equal(sample(text, 'test_things_total{kind="blue"}'), undefined, 'a label set never counted is not a series')
  red.inc()
  text = await registry.metrics()
  t.equal(sample(text, 'test_things_total{kind="red"}'), 4.5, 'what came since the last read is added, not repeated')
  t.throws(() => red.inc(-1), /only goes up/)
})

t.test('requests counted and in flight by route, as the core counts them', async (t) => {
  const metrics = createMetrics()
  metrics.enter('ai_complete')
  metrics.enter('ai_complete')
  metrics.countRequest('ai_complete', '2xx', 'ok')
  metrics.leave('ai_complete')
  const text = await metrics.registry.metrics()
  t.equal(sample(text, 'tollgate_requests_total{route="ai_complete",status_class="2xx",reason="ok"}'), 1)
  t.equal(sample(text, 'tollgate_requests_in_flight{route="ai_complete"}'), 1)
})

/** Counts calls of prom-client's counter and gauge updates in this process (the gateway under test runs here). */
function countUpdates(t: Test) {
  const counted = { calls: 0 }
  const methods = [
    [Counter.prototype, 'inc'],
    [Gauge.prototype, 'inc'],
    [Gauge.prototype, 'dec'],
  ] as const
  for (const [prototype, name] of methods) {
    const methodsOf = prototype as unknown as Record<string, (...args: unknown[]) => void>
    const original = methodsOf[name]!
    methodsOf[name] = function (this: unknown, ...args: unknown[]) {
      counted.calls++
      return original.apply(this, args)
    }
    t.teardown(() => {
      methodsOf[name] = original
    })
  }
  return counted
}

t.test('a model call updates no prom-client counter or gauge; the scrape still counts it', async (t) => {
  const { url, key } = await startMockedGateway(t)
  const counted = countUpdates(t)
  const res = await request(`${url}/api/ai/complete`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(hello),
  })
  await res.body.json()
  t.equal(res.statusCode, 200)
  t.equal(counted.calls, 0, 'no counter or gauge call on the request path')
  const text = await (await request(`${url}/metrics`)).body.text()
  t.equal(sample(text, 'tollgate_requests_total{route="ai_complete",status_class="2xx",reason="ok"}'), 1)
  t.equal(sample(text, 'tollgate_cache_requests_total{result="miss"}'), 1)
  t.ok((sample(text, 'tollgate_tokens_total{provider="openai",model="gpt-4o-mini",direction="input"}') ?? 0) > 0)
  t.equal(sample(text, 'tollgate_requests_in_flight{route="ai_complete"}'), 0)
})
