// Limits kept in Redis, leased by each gateway a slice at a time: the server-side script reaches
// exactly the state leaseTokens reaches, and two gateways on one Redis enforce one limit between
// them with a script call per slice. Redis away: 503 with retry-after, or
// the requests pass unchecked when the operator chose failOpen.
import t, { type Test } from 'tap'
import fc from 'fast-check'
import pino from 'pino'
import { dayOf, leaseTokens, type LeaseGrant, type SharedLimitState } from '../../../../plugins/rate-limit/logic/token-leases.ts'
import { leasedLimits } from '../../../../plugins/rate-limit/store/leased.ts'
import { redisLeases, stateOf } from '../../../../plugins/rate-limit/store/redis.ts'
import type { PlanLimits } from '../../../../plugins/rate-limit/schema.ts'
import { openRedis } from '../../../../proxy/stores/redis.ts'
import { call } from '../../../helpers/http.ts'
import { captureLog, type LogCapture } from '../../../helpers/log-capture.ts'
import { manualClock } from '../../../helpers/manual-clock.ts'
import { until } from '../../../helpers/until.ts'
import { REDIS_MISSING, startRedis, type RedisServer } from '../../../helpers/redis-server.ts'
import { freshDataDir, seedProject, startTestGateway } from '../../../helpers/start-gateway.ts'

const DAY_MS = 86_400_000
const RUNS = 150

const limitsArbitrary: fc.Arbitrary<PlanLimits> = fc
  .record({
    perMinute: fc.option(fc.integer({ min: 1, max: 1_000 })),
    burst: fc.option(fc.integer({ min: 1, max: 50 })),
    perDay: fc.option(fc.integer({ min: 1, max: 30 })),
  })
  .filter((l) => l.perMinute !== null || l.perDay !== null)

// Mostly forward in steps from none to hours, sometimes back a little (another host's clock).
const stepArbitrary = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2_000 }), fc.integer({ min: 1, max: 3_600_000 }), fc.integer({ min: -5_000, max: -1 }))

const askArbitrary = fc.record({
  owner: fc.constantFrom('a' as const, 'b' as const),
  step: stepArbitrary,
  need: fc.integer({ min: 0, max: 40 }),
  unused: fc.integer({ min: 0, max: 40 }),
  daysAgo: fc.constantFrom(0, 0, 1),
})

/** A state as JSON with its leases in one order (Redis keeps a hash's fields in an order of its own). */
const canonical = (state: SharedLimitState) => JSON.stringify({ ...state, leases: Object.entries(state.leases ?? {}).sort() })
const grantOf = (grant: LeaseGrant) => JSON.stringify({ ...grant, next: canonical(grant.next) })

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

  t.test('the script reaches the state leaseTokens reaches for any sequence of leases by two gateways', async (t) => {
    const redis = openRedis(server.url, pino({ level: 'silent' }))
    t.teardown(() => redis.close())
    await redis.connected()
    const backend = { a: redisLeases(redis, 'a'), b: redisLeases(redis, 'b') }
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        limitsArbitrary,
        fc.integer({ min: 0, max: 2 * DAY_MS }),
        fc.array(askArbitrary, { minLength: 1, maxLength: 40 }),
        async (limits, start, asks) => {
          const keyId = `property-${run++}`
          const key = `${redis.prefix('rate-limit')}key:${keyId}`
          let now = 1_700_000_000_000 + start
          let state: SharedLimitState | undefined
          for (const ask of asks) {
            now += ask.step
            const given = { count: ask.unused, day: dayOf(now) - ask.daysAgo }
            const expected = leaseTokens(limits, state, now, { owner: ask.owner, need: ask.need, unused: given.count, unusedDay: given.day })
            const grant = await backend[ask.owner].lease(keyId, limits, now, ask.need, () => given)
            const stored = stateOf(await redis.client.hgetall(key).then((hash) => Object.entries(hash).flat()))
            if (grantOf(grant) !== grantOf(expected) || canonical(stored) !== canonical(expected.next)) {
              throw new Error(`at ${now}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(grant)} and stored ${JSON.stringify(stored)}`)
            }
            state = expected.next
          }
        },
      ),
      { numRuns: RUNS },
    )
    t.pass(`${RUNS} random sequences agree`)
  })

  t.test('a key idle until its bucket is full, its leases lapsed and its day is over expires', async (t) => {
    const redis = openRedis(server.url, pino({ level: 'silent' }))
    t.teardown(() => redis.close())
    await redis.connected()
    await redisLeases(redis, 'a').lease('idle', { perMinute: 60, burst: 10, perDay: null }, 0, 1, () => ({ count: 0, day: 0 }))
    const ttl = await redis.client.pttl(`${redis.prefix('rate-limit')}key:idle`)
    t.ok(ttl > 60_000 && ttl <= 65_000, `a minute's grace beyond the lease's life (${ttl} ms)`)
  })

  t.test('two gateways: one script call per slice for a key with a large limit, and exact with a small one', async (t) => {
    const clock = manualClock()
    let calls = 0
    const gateway = async (owner: string) => {
      const redis = openRedis(server.url, pino({ level: 'silent' }))
      t.teardown(() => redis.close())
      await redis.connected()
      const backend = redisLeases(redis, owner)
      const counted = {
        lease: (...args: Parameters<typeof backend.lease>) => {
          calls++
          return backend.lease(...args)
        },
      }
      const limits = leasedLimits(counted, { clock, track: () => undefined })
      t.teardown(() => limits.close())
      return limits
    }
    const both = [await gateway('a'), await gateway('b')]
    const large: PlanLimits = { perMinute: 1_000_000, burst: 1_000_000, perDay: 100_000_000 }
    let allowed = 0
    for (let i = 0; i < 1_000; i++) {
      clock.advance(1)
      if ((await both[i % 2]!.check('large', large, clock.now()))!.allowed) allowed++
    }
    t.equal(allowed, 1_000)
    t.ok(calls <= 1_000 / 20, `${calls} script calls for 1,000 requests`)
    const small: PlanLimits = { perMinute: 5, burst: 5, perDay: null }
    const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => both[i % 2]!.check('small', small, clock.now())))
    t.equal(burst.filter((verdict) => verdict!.allowed).length, 5, 'a limit of 5 admits 5, never 6')
    const bucket: PlanLimits = { perMinute: 100, burst: 200, perDay: null }
    const many = await Promise.all(Array.from({ length: 1_000 }, (_, i) => both[i % 2]!.check('bucket', bucket, clock.now())))
    const admitted = many.filter((verdict) => verdict!.allowed).length
    t.ok(admitted <= 200 * 1.01 && admitted >= 190, `${admitted} of a burst of 1,000 against a bucket of 200`)
  })

  t.test('two gateways on one Redis let a key through its burst once, not once each', async (t) => {
    const { a, b, ask } = await gateways(t, server)
    const statuses: number[] = []
    for (let i = 0; i < 15; i++) statuses.push((await ask(a)).status, (await ask(b)).status)
    t.equal(statuses.filter((s) => s === 200).length, 20, "the free plan's burst of 20 between them")
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
