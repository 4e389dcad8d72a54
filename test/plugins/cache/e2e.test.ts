// The cache inside the real gateway: the spec's rule that a repeated request is a HIT charged 0
// credits, on complete (JSON) and on chat (SSE), and the metrics it exposes.
import t, { type Test } from 'tap'
import { call, parseSse } from '../../helpers/http.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'
const body = { messages: [{ role: 'user', content: 'What is a toll gate?' }], temperature: 0 }

async function gateway(t: Test) {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const { url } = await startTestGateway(t, { dataDir })
  return { url, key: seeded.keys[0]!.key, projectId: seeded.projectId }
}

t.test('a repeated complete request is a MISS, then a HIT charged 0 credits', async (t) => {
  const { url, key } = await gateway(t)
  const miss = await call(`${url}/api/ai/complete`, { key, body })
  t.equal(miss.status, 200)
  t.equal(miss.headers['x-cache-status'], 'MISS')
  t.equal(miss.body.cacheHit, false)
  t.not(Number(miss.headers['x-credits-charged']), 0)

  const hit = await call(`${url}/api/ai/complete`, { key, body })
  t.equal(hit.status, 200)
  t.equal(hit.headers['x-cache-status'], 'HIT')
  t.equal(hit.headers['x-credits-charged'], '0.000000')
  t.strictSame(hit.body, { ...miss.body, cacheHit: true, usage: { ...miss.body.usage, costCents: 0 } })
})

t.test('a repeated chat request replays the stored text as SSE with a HIT', async (t) => {
  const { url, key } = await gateway(t)
  const first = await call(`${url}/api/ai/chat`, { key, body })
  t.equal(first.headers['x-cache-status'], 'MISS')
  const firstEvents = parseSse(first.body)
  const text = firstEvents
    .filter((e) => e.event === 'delta')
    .map((e) => e.data.text)
    .join('')

  const second = await call(`${url}/api/ai/chat`, { key, body })
  t.equal(second.headers['content-type']?.startsWith('text/event-stream'), true)
  t.equal(second.headers['x-cache-status'], 'HIT')
  t.equal(second.headers['x-credits-charged'], '0.000000')
  const events = parseSse(second.body)
  t.strictSame(
    events.map((e) => e.event),
    ['delta', 'done'],
  )
  t.equal(events[0]!.data.text, text)
  t.match(events[1]!.data, { cacheHit: true, creditsCharged: 0, usage: { costCents: 0 } })
})

t.test('chat is served from an answer stored by complete with the same content', async (t) => {
  const { url, key } = await gateway(t)
  const stored = await call(`${url}/api/ai/complete`, { key, body })
  const chat = await call(`${url}/api/ai/chat`, { key, body })
  t.equal(chat.headers['x-cache-status'], 'HIT')
  t.equal(parseSse(chat.body)[0]!.data.text, stored.body.text)
})

t.test('Cache-Control no-store gets a fresh answer every time', async (t) => {
  const { url, key } = await gateway(t)
  const headers = { 'cache-control': 'no-store' }
  await call(`${url}/api/ai/complete`, { key, body, headers })
  const again = await call(`${url}/api/ai/complete`, { key, body, headers })
  t.equal(again.headers['x-cache-status'], 'MISS')
  const plain = await call(`${url}/api/ai/complete`, { key, body })
  t.equal(plain.headers['x-cache-status'], 'MISS')
})

t.test('usage statistics count the hit and the miss, and the metrics show the lookups', async (t) => {
  const { url, key, projectId } = await gateway(t)
  await call(`${url}/api/ai/complete`, { key, body })
  await call(`${url}/api/ai/complete`, { key, body })
  const usage = await call(`${url}/api/usage?projectId=${projectId}`, { key })
  t.match(usage.body.cache, { hits: 1, misses: 1, hitRate: 50 })
  const metrics = await call(`${url}/metrics`)
  t.match(metrics.body, /tollgate_cache_requests_total\{result="hit"\} 1/)
  t.match(metrics.body, /tollgate_cache_requests_total\{result="miss"\} 1/)
  t.match(metrics.body, /tollgate_cache_entries 1/)
})
