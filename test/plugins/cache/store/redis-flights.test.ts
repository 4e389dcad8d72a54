// Coalescing across gateways: one lock holder per key, a bounded wait for its answer, and an early
// end of the wait when the lock goes without one.
import t from 'tap'
import pino from 'pino'
import { redisAnswerStore } from '../../../../plugins/cache/store/redis.ts'
import { sharedFlights } from '../../../../plugins/cache/store/redis-flights.ts'
import { openRedis } from '../../../../proxy/stores/redis.ts'
import { REDIS_MISSING, startRedis } from '../../../helpers/redis-server.ts'

const answer = {
  text: 'shared',
  provider: 'local',
  model: 'gpt-4o-mini',
  usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2, costCents: 0 },
  storedAt: 0,
} as const

t.test('Redis', { skip: REDIS_MISSING }, async (t) => {
  const server = await startRedis(t)
  // Two gateways: each its own connection, as on two hosts.
  const hosts = await Promise.all(
    [1, 2].map(async () => {
      const redis = openRedis(server.url, pino({ level: 'silent' }))
      t.teardown(() => redis.close())
      await redis.connected()
      const answers = redisAnswerStore(redis, 100)
      return { answers, flights: sharedFlights(redis, answers, 1000) }
    }),
  )
  const [one, two] = hosts as [(typeof hosts)[0], (typeof hosts)[0]]
  const signal = new AbortController().signal

  t.test('the first to ask leads; the other gets the answer once it is stored', async (t) => {
    t.equal(await one.flights.tryLead('k1'), true)
    t.equal(await two.flights.tryLead('k1'), false)
    const waiting = two.flights.awaitAnswer('k1', signal)
    await one.answers.put('k1', answer, 60_000)
    t.same(await waiting, answer)
    await one.flights.release('k1')
    t.equal(await two.flights.tryLead('k1'), true, 'free once released')
  })

  t.test('a leader that never answers holds the others for the wait at most', async (t) => {
    t.equal(await one.flights.tryLead('k2'), true)
    const started = performance.now()
    t.equal(await two.flights.awaitAnswer('k2', signal), undefined)
    const waited = performance.now() - started
    t.ok(waited < 3_000, `gave up after ${Math.round(waited)} ms`)
  })

  t.test('a leader that lets go without an answer ends the wait early; only the holder can let go', async (t) => {
    t.equal(await one.flights.tryLead('k3'), true)
    await two.flights.release('k3')
    t.equal(await two.flights.tryLead('k3'), false, 'still held by the first')
    const waiting = two.flights.awaitAnswer('k3', signal)
    await one.flights.release('k3')
    t.equal(await waiting, undefined)
  })

  t.test('Redis away: everyone leads', async (t) => {
    await server.stop()
    t.teardown(() => server.start())
    t.equal(await one.flights.tryLead('k4'), true)
    t.equal(await two.flights.tryLead('k4'), true)
  })
})
