import t from 'tap'
import { Registry } from 'prom-client'
import plugin, { effectiveLimits, withKeyRpm } from '../../../plugins/rate-limit/index.ts'
import { rateLimitSchema } from '../../../plugins/rate-limit/schema.ts'
import type { PluginDeps } from '../../../proxy/pipeline/plugin.ts'
import type { Clock } from '../../../proxy/kit/clock.ts'
import type { RequestContext } from '../../../proxy/pipeline/context.ts'
import type { Plan } from '../../../proxy/pipeline/project.ts'
import { DEFAULT_GOVERNOR_SETTINGS } from '../../../plugins/governor/state.ts'
import { makeContext } from '../../helpers/make-context.ts'
import { manualClock } from '../../helpers/manual-clock.ts'

function authed(keyId: string, plan: Plan, env: 'dev' | 'prod'): RequestContext {
  const ctx = makeContext()
  ctx.state.auth = {
    keyId,
    keyType: 'sk',
    env,
    testMode: env === 'dev',
    project: { id: 'p', name: 'p', plan, budgetDollars: 1, cacheTtlSeconds: 60, cacheEnabled: true, governor: DEFAULT_GOVERNOR_SETTINGS, createdAt: '' },
  }
  return ctx
}

async function hooksWith(clock: Clock) {
  const config = rateLimitSchema.parse({})
  return plugin.setup(config, { clock, metrics: new Registry() } as unknown as PluginDeps)
}

t.test('development keys get a tenth of the plan, never less than one', async (t) => {
  const config = rateLimitSchema.parse({})
  t.same(effectiveLimits(config, 'pro', 'dev'), { perMinute: 10, burst: 20, perDay: 10_000 })
  t.same(effectiveLimits(config, 'free', 'dev'), { perMinute: 1, burst: 2, perDay: 100 })
  t.same(effectiveLimits(config, 'pro', 'prod'), { perMinute: 100, burst: 200, perDay: 100_000 })
})

t.test('a free key gets its burst of 20, then 429s until the manual clock refills it', async (t) => {
  const clock = manualClock(0)
  const hooks = await hooksWith(clock)
  const results = []
  for (let i = 0; i < 21; i++) results.push(hooks.onRequest!(authed('k1', 'free', 'prod')))
  t.equal(results.slice(0, 20).filter((r) => r === undefined).length, 20)
  t.match(results[20], { kind: 'error', error: { status: 429, retryAfterS: 6 } }, '10/min: one token every 6 s')
  clock.advance(6_000)
  t.equal(hooks.onRequest!(authed('k1', 'free', 'prod')), undefined)
})

t.test('keys are limited separately and the headers say where each stands', async (t) => {
  const hooks = await hooksWith({ now: () => 0 })
  const a = authed('a', 'free', 'prod')
  hooks.onRequest!(a)
  t.same(a.responseHeaders, { 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '6' })
  const b = authed('b', 'free', 'prod')
  hooks.onRequest!(b)
  t.equal(b.responseHeaders['x-ratelimit-remaining'], '19')
})

t.test('the daily quota refuses once used up, even with tokens in the bucket', async (t) => {
  const clock = manualClock(0)
  const hooks = await hooksWith(clock)
  // Free: 1,000 a day. Spread them so the bucket never runs dry.
  let allowed = 0
  for (let i = 0; i < 1000; i++) {
    clock.advance(6_000)
    if (hooks.onRequest!(authed('q', 'free', 'prod')) === undefined) allowed++
  }
  t.equal(allowed, 1000)
  clock.advance(6_000)
  const refused = hooks.onRequest!(authed('q', 'free', 'prod'))
  t.match(refused, { kind: 'error', error: { status: 429, message: /daily quota of 1000 requests/ } })
})

t.test('enterprise keys are unlimited and carry no rate-limit headers', async (t) => {
  const hooks = await hooksWith({ now: () => 0 })
  const ctx = authed('e', 'enterprise', 'prod')
  let allowed = 0
  for (let i = 0; i < 5000; i++) if (hooks.onRequest!(ctx) === undefined) allowed++
  t.equal(allowed, 5000)
  t.same(ctx.responseHeaders, {})
})

t.test('an unlimited key never reaches the shared store: no write transaction per request', async (t) => {
  let transactions = 0
  const store = {
    open: () => ({ get: () => undefined, put: () => undefined }),
    transaction: async <T>(fn: () => T) => {
      transactions++
      return fn()
    },
  }
  const config = rateLimitSchema.parse({ shared: true })
  const hooks = await plugin.setup(config, { clock: { now: () => 0 }, metrics: new Registry(), store, track: () => undefined } as unknown as PluginDeps)
  t.teardown(() => hooks.close?.())
  t.equal(hooks.onRequest!(authed('e', 'enterprise', 'prod')), undefined)
  t.equal(transactions, 0)
  await hooks.onRequest!(authed('p', 'pro', 'prod'))
  t.equal(transactions, 1, 'a limited key still counts in the shared store')
})

t.test("a key's own rpm narrows the plan's rate and burst, and sets one on an unlimited plan", async (t) => {
  const pro = { perMinute: 100, burst: 200, perDay: 100_000 }
  t.equal(withKeyRpm(pro, undefined), pro)
  t.same(withKeyRpm(pro, 30), { perMinute: 30, burst: 30, perDay: 100_000 })
  t.same(withKeyRpm(pro, 1000), pro, 'never wider than the plan')
  t.same(withKeyRpm({ perMinute: null, burst: null, perDay: null }, 5), { perMinute: 5, burst: 5, perDay: null })
})
