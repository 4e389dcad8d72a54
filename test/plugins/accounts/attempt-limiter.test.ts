import t, { type Test } from 'tap'
import { createMemoryAttemptLimiter, type AttemptLimiter } from '../../../plugins/accounts/attempt-limiter.ts'
import { createStoreAttemptLimiter } from '../../../plugins/accounts/store-attempt-limiter.ts'
import type { Clock } from '../../../proxy/clock.ts'
import { openStore, type PluginStore } from '../../../proxy/store.ts'
import { freshDataDir } from '../../helpers/start-gateway.ts'
import { manualClock } from './helpers.ts'

function pluginStore(t: Test): PluginStore {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  return store.forPlugin('accounts')
}

const kinds: Array<[string, (t: Test, clock: Clock) => AttemptLimiter]> = [
  ['in memory', (_t, clock) => createMemoryAttemptLimiter(clock)],
  ['in the store', (t, clock) => createStoreAttemptLimiter(pluginStore(t), clock)],
]

for (const [kind, make] of kinds) {
  t.test(`${kind}: a key allows its limit per minute, then reports the seconds until its window ends`, async (t) => {
    const clock = manualClock()
    const limiter = make(t, clock)
    const keys = [{ key: 'ip', limit: 3 }]
    t.same([(await limiter.attempt(keys)).allowed, (await limiter.attempt(keys)).allowed, (await limiter.attempt(keys)).allowed], [true, true, true])
    clock.advance(15_500)
    t.same(await limiter.attempt(keys), { allowed: false, retryAfterS: 45 })
    clock.advance(44_500)
    t.same(await limiter.attempt(keys), { allowed: true })
  })

  t.test(`${kind}: an attempt refused by one key is counted under none`, async (t) => {
    const limiter = make(t, manualClock())
    const ip = { key: 'ip', limit: 1 }
    const email = { key: 'email', limit: 5 }
    t.equal((await limiter.attempt([ip, email])).allowed, true)
    for (let i = 0; i < 4; i++) t.equal((await limiter.attempt([ip, email])).allowed, false)
    t.equal((await limiter.attempt([{ key: 'other-ip', limit: 1 }, email])).allowed, true, 'the refused attempts did not use up the e-mail\'s allowance')
  })
}

t.test('limiters on one store share their counts, even when attempts arrive at once', async (t) => {
  const store = pluginStore(t)
  const clock = manualClock()
  const [a, b] = [createStoreAttemptLimiter(store, clock), createStoreAttemptLimiter(store, clock)]
  const keys = [{ key: 'login|email|target@example.com', limit: 5 }]
  const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).attempt(keys)))
  t.equal(outcomes.filter((o) => o.allowed).length, 5)
})

t.test('expired windows are swept from the store a bounded number at a time, and keys are stored hashed', async (t) => {
  const store = pluginStore(t)
  const clock = manualClock()
  const limiter = createStoreAttemptLimiter(store, clock)
  for (let i = 0; i < 40; i++) await limiter.attempt([{ key: `signup|ip|10.0.0.${i}`, limit: 10 }])
  const windows = store.open<unknown>('attempt-windows')
  const byStart = store.open<unknown>('attempt-windows-by-start')
  t.equal(windows.getKeysCount(), 40)
  t.notOk([...windows.getKeys()].some((key) => String(key).includes('10.0.0.')), 'no IP in the store')
  clock.advance(60_000)
  await limiter.attempt([{ key: 'signup|ip|10.0.0.200', limit: 10 }])
  t.equal(windows.getKeysCount(), 40 - 16 + 1, 'one attempt removes at most 16 expired windows')
  await limiter.attempt([{ key: 'signup|ip|10.0.0.200', limit: 10 }])
  await limiter.attempt([{ key: 'signup|ip|10.0.0.200', limit: 10 }])
  t.equal(windows.getKeysCount(), 1, 'a few attempts later only the live window is left')
  t.equal(byStart.getKeysCount(), 1, 'and its index entry')
})

t.test('a window that expires and opens again keeps one index entry', async (t) => {
  const store = pluginStore(t)
  const clock = manualClock()
  const limiter = createStoreAttemptLimiter(store, clock)
  const keys = [{ key: 'login|ip|1.2.3.4', limit: 2 }]
  await limiter.attempt(keys)
  await limiter.attempt(keys)
  clock.advance(61_000)
  t.same(await limiter.attempt(keys), { allowed: true })
  t.equal(store.open<unknown>('attempt-windows-by-start').getKeysCount(), 1)
})
