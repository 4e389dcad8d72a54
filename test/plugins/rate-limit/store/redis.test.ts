// Limits kept in Redis: the server-side script reaches exactly the state checkLimits reaches, and
// two gateways on one Redis enforce one limit between them. Redis away: 503 with retry-after, or
// the requests pass unchecked when the operator chose failOpen.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import pino from 'pino'
import { checkLimits, type KeyLimitState } from '../../../../plugins/rate-limit/logic/check-limits.ts'
import { redisLimitStore, stateOf } from '../../../../plugins/rate-limit/store/redis.ts'
import type { PlanLimits } from '../../../../plugins/rate-limit/schema.ts'
import { openRedis } from '../../../../proxy/stores/redis.ts'
import { call } from '../../../helpers/http.ts'
import { captureLog, type LogCapture } from '../../../helpers/log-capture.ts'
import { until } from '../../../helpers/until.ts'
import { REDIS_MISSING, startRedis, type RedisServer } from '../../../helpers/redis-server.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../../helpers/start-gateway.ts'

const DAY_MS = 86_400_000
const RUNS = 150

const limitsArbitrary: fc.Arbitrary<PlanLimits> = fc.record({
  perMinute: fc.option(fc.integer({ min: 1, max: 1_000 })),
  burst: fc.option(fc.integer({ min: 1, max: 50 })),
  perDay: fc.option(fc.integer({ min: 1, max: 30 })),
}).filter((l) => l.perMinute !== null || l.perDay !== null)

// Mostly forward in steps from none to hours, sometimes back a little (another host's clock).
const stepArbitrary = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 2_000 }),
  fc.integer({ min: 1, max: 3_600_000 }),
  fc.integer({ min: -5_000, max: -1 }),
)

async function gateways(t: Test, server: RedisServer, plugins: Record<string, unknown> = {}, log?: LogCapture) {
  const dataDir = freshDataDir(t)
  const seeded = await seedProject(dataDir, { plan: 'free' })
  const clock = { now: () => 1_700_000_000_000 }
  const overrides = { plugins }
  const env = { REDIS_URL: server.url }
  const logged = log === undefined ? {} : { overrides: { plugins, logLevel: 'warn' }, logDestination: log.destination }
  const a = await startTestGateway(t, { dataDir, env, clock, overrides, ...logged })
  const b = await startTestGateway(t, { dataDir, env, clock, overrides })
  const key = seeded.keys[0]!.key
  const ask = (url: string) => call(`${url}/api/usage?projectId=${seeded.projectId}`, { key })
  return { a: a.url, b: b.url, ask }
}

async function untilUp(url: string) {
  await until(async () => (await call(`${url}/readyz`)).body.dependencies?.redis === 'up', 'Redis to be up again')
}

t.test('Redis', { skip: REDIS_MISSING }, async (t) => {
  const server = await startRedis(t)

  t.test('the script reaches the state and verdict of checkLimits for any sequence of checks', async (t) => {
    const redis = openRedis(server.url, pino({ level: 'silent' }))
    t.teardown(() => redis.close())
    await redis.connected()
    const store = redisLimitStore(redis)
    let run = 0
    await fc.assert(fc.asyncProperty(
      limitsArbitrary,
      fc.integer({ min: 0, max: 2 * DAY_MS }),
      fc.array(stepArbitrary, { minLength: 1, maxLength: 60 }),
      async (limits, start, steps) => {
        const keyId = `property-${run++}`
        let now = 1_700_000_000_000 + start
        let state: KeyLimitState | undefined
        for (const step of steps) {
          now += step
          const expected = checkLimits(limits, state, now)!
          const verdict = await store.check(keyId, limits, now)
          const stored = stateOf(await redis.client.hmget(`${redis.prefix('rate-limit')}key:${keyId}`, 'tokens', 'updated', 'day', 'used') as never)
          if (JSON.stringify(verdict) !== JSON.stringify(expected) || JSON.stringify(stored) !== JSON.stringify(expected.next)) {
            throw new Error(`at ${now}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(verdict)} and stored ${JSON.stringify(stored)}`)
          }
          state = expected.next
        }
      },
    ), { numRuns: RUNS })
    t.pass(`${RUNS} random sequences agree`)
  })

  t.test('a key idle until its bucket is full and its day is over expires', async (t) => {
    const redis = openRedis(server.url, pino({ level: 'silent' }))
    t.teardown(() => redis.close())
    await redis.connected()
    await redisLimitStore(redis).check('idle', { perMinute: 60, burst: 10, perDay: null }, 0)
    const ttl = await redis.client.pttl(`${redis.prefix('rate-limit')}key:idle`)
    t.ok(ttl > 60_000 && ttl <= 61_000, `one token's refill plus a minute's grace (${ttl} ms)`)
  })

  t.test('two gateways on one Redis let a key through its burst once, not once each', async (t) => {
    const { a, b, ask } = await gateways(t, server)
    const statuses: number[] = []
    for (let i = 0; i < 15; i++) statuses.push((await ask(a)).status, (await ask(b)).status)
    t.equal(statuses.filter((s) => s === 200).length, 20, 'the free plan\'s burst of 20 between them')
    t.equal(statuses.filter((s) => s === 429).length, 10)
    const refused = await ask(b)
    t.match(refused, { status: 429, headers: { 'retry-after': '6', 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '0' } })
  })

  t.test('Redis away: 503 with retry-after; back: limits hold again', async (t) => {
    const { a, b, ask } = await gateways(t, server)
    t.equal((await ask(a)).status, 200)
    await server.stop()
    const down = await ask(b)
    t.match(down, { status: 503, headers: { 'retry-after': '1' }, body: { code: 'dependency_unavailable', dependency: 'redis' } })
    await server.start()
    await untilUp(a)
    await untilUp(b)
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) statuses.push((await ask(a)).status, (await ask(b)).status)
    t.equal(statuses.filter((s) => s === 200).length, 20, 'the new server starts every key with a full bucket, shared again')
  })

  t.test('failOpen lets requests through while Redis is away, counted and logged once', async (t) => {
    const log = captureLog()
    const { a, ask } = await gateways(t, server, { 'rate-limit': { failOpen: true } }, log)
    await server.stop()
    t.teardown(() => server.start())
    for (let i = 0; i < 3; i++) {
      const passed = await ask(a)
      t.equal(passed.status, 200)
      t.equal(passed.headers['x-ratelimit-limit'], undefined, 'no limit was checked')
    }
    t.match((await call(`${a}/metrics`)).body, /tollgate_rate_limit_fail_open_total 3/)
    t.equal(log.lines().filter((line) => line.plugin === 'rate-limit' && /failOpen/.test(line.msg)).length, 1)
  })
})
