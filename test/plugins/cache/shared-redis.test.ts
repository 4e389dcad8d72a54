// The answer cache in Redis, shared by two gateways: a miss on one is a hit on the other, an
// identical request arriving while the other gateway asks the model waits for its answer, the
// entry count covers both, and Redis away costs a model call, not the request.
import t, { type Test } from 'tap'
import { cpSync } from 'node:fs'
import pino from 'pino'
import { openRedis } from '../../../proxy/stores/redis.ts'
import { call, parseSse } from '../../helpers/http.ts'
import { until } from '../../helpers/until.ts'
import { REDIS_MISSING, startRedis, type RedisServer } from '../../helpers/redis-server.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../helpers/start-gateway.ts'

const ask = (content: string) => ({ messages: [{ role: 'user', content }], temperature: 0 })

// Two hosts: each its own data directory, holding the same project and key.
async function gateways(t: Test, server: RedisServer, slowA = false) {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir)
  const copy = freshDataDir(t)
  cpSync(dataDir, copy, { recursive: true })
  const env = { REDIS_URL: server.url }
  const a = await startTestGateway(t, { dataDir, env: slowA ? { ...env, LOCAL_CHUNK_DELAY_MS: '100' } : env })
  const b = await startTestGateway(t, { dataDir: copy, env })
  const key = seeded.keys[0]!.key
  const complete = (url: string, content: string) => call(`${url}/api/ai/complete`, { key, body: ask(content) })
  return { a: a.url, b: b.url, key, complete }
}

async function untilUp(url: string) {
  await until(async () => (await call(`${url}/readyz`)).body.dependencies?.redis === 'up', 'Redis to be up again')
}

t.test('Redis', { skip: REDIS_MISSING }, async (t) => {
  const server = await startRedis(t)

  t.test('a miss on one gateway is a hit on the other, and each counts the entries of both', async (t) => {
    const { a, b, complete } = await gateways(t, server)
    const miss = await complete(a, 'What is a toll gate?')
    t.equal(miss.headers['x-cache-status'], 'MISS')
    const hit = await complete(b, 'What is a toll gate?')
    t.equal(hit.headers['x-cache-status'], 'HIT')
    t.equal(hit.headers['x-credits-charged'], '0.000000')
    t.equal(hit.body.text, miss.body.text)
    t.equal((await complete(b, 'And a turnpike?')).headers['x-cache-status'], 'MISS')
    t.match((await call(`${a}/metrics`)).body, /tollgate_cache_entries 2/)
    t.match((await call(`${b}/metrics`)).body, /tollgate_cache_entries 2/)
  })

  t.test('an identical miss on the other gateway waits for the answer being made instead of asking the model again', async (t) => {
    const { a, b, key, complete } = await gateways(t, server, true)
    const redis = openRedis(server.url, pino({ level: 'silent' }))
    t.teardown(() => redis.close())
    await redis.connected()
    const body = ask('Tell me about coalescing, slowly')
    const leading = call(`${a}/api/ai/chat`, { key, body })
    await until(async () => (await redis.client.keys(`${redis.prefix('cache')}leader:*`)).length > 0, 'a leader lock')
    const following = await complete(b, body.messages[0]!.content)
    const led = await leading
    t.equal(led.headers['x-cache-status'], 'MISS')
    t.equal(following.headers['x-cache-status'], 'HIT')
    t.equal(following.headers['x-credits-charged'], '0.000000')
    t.equal(
      following.body.text,
      parseSse(led.body)
        .filter((e) => e.event === 'delta')
        .map((e) => e.data.text)
        .join(''),
    )
    t.match((await call(`${b}/metrics`)).body, /tollgate_cache_requests_total\{result="coalesced"\} 1/)
    // The leader gives its lock up once its request has completed, after its answer went out.
    await until(async () => (await redis.client.keys(`${redis.prefix('cache')}leader:*`)).length === 0, 'the leader lock to go')
    t.pass('the leader gave its lock up')
  })

  t.test('Redis away: every request is answered as a miss and the failures are counted; back: hits again', async (t) => {
    const { a, b, complete } = await gateways(t, server)
    t.equal((await complete(a, 'stored before the outage')).headers['x-cache-status'], 'MISS')
    await server.stop()
    for (const url of [a, b]) {
      const answered = await complete(url, 'stored before the outage')
      t.equal(answered.status, 200)
      t.equal(answered.headers['x-cache-status'], 'MISS')
    }
    const metrics = (await call(`${b}/metrics`)).body
    t.match(metrics, /tollgate_cache_store_failures_total\{operation="lookup"\} 1/)
    t.match(metrics, /tollgate_cache_store_failures_total\{operation="store"\} 1/, 'the answer it could not store was dropped')
    t.match(metrics, /tollgate_cache_entries 0/, 'no count known on this gateway before the outage')

    await server.start()
    await untilUp(a)
    await untilUp(b)
    t.equal((await complete(b, 'stored after the outage')).headers['x-cache-status'], 'MISS')
    t.equal((await complete(a, 'stored after the outage')).headers['x-cache-status'], 'HIT')
  })
})
