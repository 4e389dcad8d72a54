import t, { type Test } from 'tap'
import pino from 'pino'
import type { AttemptLimiter } from '../../../../plugins/accounts/store/attempt-limiter.ts'
import { createMemoryAttemptLimiter } from '../../../../plugins/accounts/store/memory/attempt-limiter.ts'
import { postgresAttemptLimiter } from '../../../../plugins/accounts/store/postgres/attempt-limiter.ts'
import { ACCOUNTS_MIGRATIONS } from '../../../../plugins/accounts/store/postgres/schema.ts'
import { createStoreAttemptLimiter } from '../../../../plugins/accounts/store/lmdb/attempt-limiter.ts'
import type { Clock } from '../../../../proxy/kit/clock.ts'
import { openDatabase, type PluginDatabase } from '../../../../proxy/stores/database.ts'
import { openStore, type PluginStore } from '../../../../proxy/stores/store.ts'
import { POSTGRES_MISSING } from '../../../helpers/postgres-server.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'
import { freshDatabase } from '../helpers.ts'
import { manualClock } from '../../../helpers/manual-clock.ts'

function pluginStore(t: Test): PluginStore {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  return store.forPlugin('accounts')
}

/** The accounts tables of a fresh database, through a pool of their own (as one gateway has). */
async function accountsDatabase(t: Test, url: string): Promise<PluginDatabase> {
  const database = openDatabase(url, pino({ level: 'silent' }), { maxConnections: 4 })
  t.teardown(() => database.close())
  const accounts = database.forPlugin('accounts')
  await accounts.migrate(ACCOUNTS_MIGRATIONS)
  return accounts
}

const kinds: Array<[string, (t: Test, clock: Clock) => AttemptLimiter | Promise<AttemptLimiter>, string | false]> = [
  ['in memory', (_t, clock) => createMemoryAttemptLimiter(clock), false],
  ['in the store', (t, clock) => createStoreAttemptLimiter(pluginStore(t), clock), false],
  ['in PostgreSQL', async (t, clock) => postgresAttemptLimiter(await accountsDatabase(t, await freshDatabase(t)), clock), POSTGRES_MISSING],
]

for (const [kind, make, skip] of kinds) {
  t.test(`${kind}: a key allows its limit per minute, then reports the seconds until its window ends`, { skip }, async (t) => {
    const clock = manualClock()
    const limiter = await make(t, clock)
    const keys = [{ key: 'ip', limit: 3 }]
    t.same([(await limiter.attempt(keys)).allowed, (await limiter.attempt(keys)).allowed, (await limiter.attempt(keys)).allowed], [true, true, true])
    clock.advance(15_500)
    t.same(await limiter.attempt(keys), { allowed: false, retryAfterS: 45 })
    clock.advance(44_500)
    t.same(await limiter.attempt(keys), { allowed: true })
  })

  t.test(`${kind}: an attempt refused by one key is counted under none`, { skip }, async (t) => {
    const limiter = await make(t, manualClock())
    const ip = { key: 'ip', limit: 1 }
    const email = { key: 'email', limit: 5 }
    t.equal((await limiter.attempt([ip, email])).allowed, true)
    for (let i = 0; i < 4; i++) t.equal((await limiter.attempt([ip, email])).allowed, false)
    t.equal((await limiter.attempt([{ key: 'other-ip', limit: 1 }, email])).allowed, true, "the refused attempts did not use up the e-mail's allowance")
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

t.test('limiters of two gateways on one database share their counts, even when attempts arrive at once', { skip: POSTGRES_MISSING }, async (t) => {
  const url = await freshDatabase(t)
  const clock = manualClock()
  const [a, b] = [postgresAttemptLimiter(await accountsDatabase(t, url), clock), postgresAttemptLimiter(await accountsDatabase(t, url), clock)]
  const keys = [
    { key: 'login|ip|1.2.3.4', limit: 50 },
    { key: 'login|email|target@example.com', limit: 5 },
  ]
  const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).attempt(keys)))
  t.equal(outcomes.filter((o) => o.allowed).length, 5)
})

t.test('in PostgreSQL, expired windows are swept a bounded number at a time, and keys are stored hashed', { skip: POSTGRES_MISSING }, async (t) => {
  const database = await accountsDatabase(t, await freshDatabase(t))
  const clock = manualClock()
  const limiter = postgresAttemptLimiter(database, clock)
  for (let i = 0; i < 40; i++) await limiter.attempt([{ key: `signup|ip|10.0.0.${i}`, limit: 10 }])
  const digests = async () => (await database.query<{ digest: string }>('SELECT digest FROM accounts_attempt_windows')).rows.map((row) => row.digest)
  t.equal((await digests()).length, 40)
  t.notOk(
    (await digests()).some((digest) => digest.includes('10.0.0.')),
    'no IP in the database',
  )
  clock.advance(60_000)
  await limiter.attempt([{ key: 'signup|ip|10.0.0.200', limit: 10 }])
  t.equal((await digests()).length, 40 - 16 + 1, 'one attempt removes at most 16 expired windows')
})

t.test('expired windows are swept from the store a bounded number at a time, and keys are stored hashed', async (t) => {
  const store = pluginStore(t)
  const clock = manualClock()
  const limiter = createStoreAttemptLimiter(store, clock)
  for (let i = 0; i < 40; i++) await limiter.attempt([{ key: `signup|ip|10.0.0.${i}`, limit: 10 }])
  const windows = store.open<unknown>('attempt-windows')
  const byStart = store.open<unknown>('attempt-windows-by-start')
  t.equal(windows.getKeysCount(), 40)
  t.notOk(
    [...windows.getKeys()].some((key) => String(key).includes('10.0.0.')),
    'no IP in the store',
  )
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
