// Limits in the LMDB store shared by several processes (serve --workers): each process leases
// slices of a key's requests, so a store transaction is taken per slice, not per request, and what
// the processes admit together never passes the limit. Each "process" here is a limit store of its
// own owner on one store, as `serve --workers` runs them.
import t, { type Test } from 'tap'
import { openStore } from '../../../../proxy/stores/store.ts'
import { leasedLimits } from '../../../../plugins/rate-limit/store/leased.ts'
import { lmdbLeases } from '../../../../plugins/rate-limit/store/lmdb.ts'
import { LEASE_LIFE_MS } from '../../../../plugins/rate-limit/logic/token-leases.ts'
import type { LimitVerdict } from '../../../../plugins/rate-limit/logic/check-limits.ts'
import type { PlanLimits } from '../../../../plugins/rate-limit/schema.ts'
import { manualClock } from '../../../helpers/manual-clock.ts'
import { freshDataDir } from '../../../helpers/start-gateway.ts'

function processes(t: Test, owners: readonly string[]) {
  const store = openStore(freshDataDir(t))
  t.teardown(() => store.close())
  const clock = manualClock()
  const each = owners.map((owner) => {
    const limits = leasedLimits(lmdbLeases(store.forPlugin('rate-limit'), owner), { clock, track: () => undefined })
    t.teardown(() => limits.close().catch(() => undefined))
    return limits
  })
  return { store, clock, each }
}

const verdictsOf = (results: ReadonlyArray<LimitVerdict | undefined>) => results.map((verdict) => verdict!)
const admitted = (verdicts: readonly LimitVerdict[]) => verdicts.filter((verdict) => verdict.allowed).length

t.test('two processes, a burst of 1,000 against a bucket of 200: at most 200 admitted between them', async (t) => {
  const { clock, each } = processes(t, ['101:a', '102:b'])
  const limits: PlanLimits = { perMinute: 100, burst: 200, perDay: null }
  const verdicts = verdictsOf(await Promise.all(Array.from({ length: 1_000 }, (_, i) => each[i % 2]!.check('k', limits, clock.now()))))
  t.ok(admitted(verdicts) <= 200 * 1.01, `${admitted(verdicts)} admitted`)
  t.ok(admitted(verdicts) >= 190, 'and hardly fewer')
  t.match(
    verdicts.find((verdict) => !verdict.allowed),
    { refusal: { by: 'burst', retryAfterSeconds: 1 } },
  )
})

t.test('a limit of 5 is exact: never a sixth, however the requests fall on the two processes', async (t) => {
  const { clock, each } = processes(t, ['101:a', '102:b'])
  const limits: PlanLimits = { perMinute: 5, burst: 5, perDay: null }
  const burst = verdictsOf(await Promise.all(Array.from({ length: 50 }, (_, i) => each[i % 2]!.check('k', limits, clock.now()))))
  t.equal(admitted(burst), 5, 'a concurrent burst')
  clock.advance(60_000)
  let oneByOne = 0
  for (let i = 0; i < 50; i++) if ((await each[i % 3 === 0 ? 0 : 1]!.check('k', limits, clock.now()))!.allowed) oneByOne++
  t.equal(oneByOne, 5, 'one request at a time, a minute later')
})

t.test('a daily quota of 30 is exact between the processes', async (t) => {
  const { clock, each } = processes(t, ['101:a', '102:b'])
  const limits: PlanLimits = { perMinute: null, burst: null, perDay: 30 }
  const verdicts = verdictsOf(await Promise.all(Array.from({ length: 100 }, (_, i) => each[i % 2]!.check('k', limits, clock.now()))))
  t.equal(admitted(verdicts), 30)
  t.match(
    verdicts.find((verdict) => !verdict.allowed),
    { refusal: { by: 'daily' }, limit: 30, remaining: 0 },
  )
})

t.test('a key with a large limit takes at most one commit per 20 requests', async (t) => {
  const { store, clock, each } = processes(t, ['101:a', '102:b'])
  const limits: PlanLimits = { perMinute: 1_000_000, burst: 1_000_000, perDay: 100_000_000 }
  const before = store.commits()
  let allowed = 0
  // One request at a time, as requests come apart from each other.
  for (let i = 0; i < 2_000; i++) {
    clock.advance(1)
    if ((await each[i % 2]!.check('k', limits, clock.now()))!.allowed) allowed++
  }
  t.equal(allowed, 2_000)
  const commits = store.commits() - before
  t.ok(commits <= 2_000 / 20, `${commits} commits for 2,000 requests`)
})

t.test('the headers count down from memory: the shared figure at the last lease less the requests admitted since', async (t) => {
  const { clock, each } = processes(t, ['101:a'])
  const limits: PlanLimits = { perMinute: 100, burst: 200, perDay: 100_000 }
  const first = await each[0]!.check('k', limits, clock.now())
  t.match(first, { allowed: true, limit: 200, remaining: 199 })
  const second = each[0]!.check('k', limits, clock.now())
  t.notOk(second instanceof Promise, 'served from the slice, without the store')
  t.match(second, { allowed: true, limit: 200, remaining: 198 })
})

t.test('an idle slice goes back after a whole sweep without use, and the other process can take it', async (t) => {
  const { clock, each } = processes(t, ['101:a', '102:b'])
  const limits: PlanLimits = { perMinute: 1, burst: 100, perDay: null }
  t.match(await each[0]!.check('k', limits, clock.now()), { allowed: true })
  await each[0]!.returnIdle()
  await each[0]!.returnIdle()
  let others = 0
  for (let i = 0; i < 120; i++) if ((await each[1]!.check('k', limits, clock.now()))!.allowed) others++
  t.equal(others, 99, 'all but the one request the first process admitted')
})

t.test('a process killed with its slice holds it back only until the lease lapses; then the bucket refills as if it had been used', async (t) => {
  const { clock, each } = processes(t, ['101:gone', '102:alive'])
  const limits: PlanLimits = { perMinute: 60, burst: 100, perDay: null }
  t.match(await each[0]!.check('k', limits, clock.now()), { allowed: true })
  // The first process is never heard from again: its slice is neither used nor given back.
  const drain = async () => {
    let allowed = 0
    for (let i = 0; i < 150; i++) if ((await each[1]!.check('k', limits, clock.now()))!.allowed) allowed++
    return allowed
  }
  const now = await drain()
  t.ok(now >= 100 - 1 - 16 && now < 99, `${now}: the bucket less the dead slice`)
  clock.advance(LEASE_LIFE_MS)
  t.equal(await drain(), LEASE_LIFE_MS / 1_000, 'the lease lapsed: what the bucket refilled meanwhile, one a second')
  clock.advance(100_000)
  t.equal(await drain(), 100, 'later, the whole bucket again: nothing is held back for good')
})

t.test('a refused key is refused from memory for up to a second, without a transaction per request', async (t) => {
  const { store, clock, each } = processes(t, ['101:a'])
  const limits: PlanLimits = { perMinute: 1, burst: 1, perDay: null }
  t.match(await each[0]!.check('k', limits, clock.now()), { allowed: true })
  t.match(await each[0]!.check('k', limits, clock.now()), { allowed: false, refusal: { by: 'burst', retryAfterSeconds: 60 } })
  const before = store.commits()
  clock.advance(500)
  const again = each[0]!.check('k', limits, clock.now())
  t.notOk(again instanceof Promise)
  t.match(again, { allowed: false, refusal: { retryAfterSeconds: 60 } })
  t.equal(store.commits(), before)
})

t.test('a request admitted while its slice is given back is not given back with it', async (t) => {
  const { clock, each } = processes(t, ['101:a', '102:b'])
  const limits: PlanLimits = { perMinute: 1, burst: 100, perDay: null }
  t.match(await each[0]!.check('k', limits, clock.now()), { allowed: true })
  const returning = each[0]!.close()
  t.match(each[0]!.check('k', limits, clock.now()), { allowed: true }, "admitted from the slice before the give-back's transaction ran")
  await returning
  let others = 0
  for (let i = 0; i < 120; i++) if ((await each[1]!.check('k', limits, clock.now()))!.allowed) others++
  t.equal(others, 98, 'all but the two requests the first process admitted')
})
