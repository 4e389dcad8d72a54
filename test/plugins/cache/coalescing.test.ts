import t from 'tap'
import type { Reply } from '../../../proxy/http/reply.ts'
import { answer, cachedResult, complete, request, send, setupCache } from './fixtures.ts'

/** Marks whether a pending hook result has settled, without waiting for it. */
function watch(pending: Reply | void | Promise<Reply | void>) {
  const state = { settled: false, value: Promise.resolve(pending) }
  state.value.then(() => {
    state.settled = true
  })
  return state
}

t.test('20 concurrent identical misses make one model call; the other 19 get its answer', async (t) => {
  const cache = await setupCache(t)
  const contexts = Array.from({ length: 20 }, () => request())
  const replies = contexts.map((ctx) => watch(cache.hooks.onRequest!(ctx)))
  await Promise.resolve()

  const [leader, ...followers] = contexts
  t.equal(await replies[0]!.value, undefined, 'the first request goes to the model')
  t.ok(
    replies.slice(1).every((reply) => !reply.settled),
    'the others wait for it',
  )

  await cache.hooks.onAnswered!(leader!, answer('one answer for all'), undefined)
  const served = await Promise.all(replies.slice(1).map((reply) => reply.value))
  for (const reply of served) {
    t.strictSame(cachedResult(reply), { ...answer('one answer for all'), cacheHit: true, usage: { ...answer('').usage, costCents: 0 } })
  }
  t.ok(followers.every((ctx) => ctx.state.cache?.hit === true && ctx.state.cache.coalesced))
  t.ok(followers.every((ctx) => ctx.state.cache?.key === leader!.state.cache?.key))
  complete(cache.hooks, leader!)
  await cache.flush()

  t.equal(await cache.requests('miss'), 1)
  t.equal(await cache.requests('coalesced'), 19)
  t.equal(await cache.entries(), 1)
})

t.test("each follower gets its own copy of the leader's answer", async (t) => {
  const cache = await setupCache(t)
  const [leader, a, b] = [request(), request(), request()]
  await cache.hooks.onRequest!(leader)
  const waiting = [cache.hooks.onRequest!(a), cache.hooks.onRequest!(b)]
  await cache.hooks.onAnswered!(leader, answer('shared'), undefined)
  const [first, second] = (await Promise.all(waiting)).map(cachedResult)
  t.not(first, second)
  t.strictSame(first, second)
})

t.test('when the leader ends without an answer, its followers proceed as ordinary misses', async (t) => {
  const cache = await setupCache(t)
  const [leader, ...followers] = Array.from({ length: 4 }, () => request())
  await cache.hooks.onRequest!(leader!)
  const waiting = followers.map((ctx) => cache.hooks.onRequest!(ctx))
  complete(cache.hooks, leader!, 'upstream_error')

  t.strictSame(await Promise.all(waiting), [undefined, undefined, undefined])
  t.ok(followers.every((ctx) => ctx.state.cache?.hit === false && !ctx.state.cache.coalesced))
  t.equal(await cache.requests('miss'), 4)

  await cache.hooks.onAnswered!(followers[0]!, answer('from a follower'), undefined)
  for (const ctx of followers) complete(cache.hooks, ctx)
  await cache.flush()
  t.equal(cachedResult(await cache.hooks.onRequest!(request()))?.text, 'from a follower')
})

t.test('the next identical request after a failed leader leads again instead of waiting', async (t) => {
  const cache = await setupCache(t)
  const leader = request()
  await cache.hooks.onRequest!(leader)
  complete(cache.hooks, leader, 'client_aborted')
  const next = request()
  t.equal(cache.hooks.onRequest!(next), undefined, 'answered at once, not a pending wait')
  const after = watch(cache.hooks.onRequest!(request()))
  await Promise.resolve()
  t.notOk(after.settled, 'the one after it waits for the new leader')
  complete(cache.hooks, next, 'upstream_error')
  t.equal(await after.value, undefined)
})

t.test('a waiting follower whose client leaves stops waiting', async (t) => {
  const cache = await setupCache(t)
  const leader = request()
  await cache.hooks.onRequest!(leader)
  const client = new AbortController()
  const follower = request({ signal: client.signal })
  const waiting = cache.hooks.onRequest!(follower)
  client.abort()
  t.equal(await waiting, undefined)
  t.match(follower.state.cache, { hit: false, coalesced: false })
  complete(cache.hooks, leader)
})

t.test('a no-cache request does not wait for an identical request in flight', async (t) => {
  const cache = await setupCache(t)
  const leader = request()
  await cache.hooks.onRequest!(leader)
  const fresh = request({ headers: { 'cache-control': 'no-cache' } })
  t.equal(cache.hooks.onRequest!(fresh), undefined)
  complete(cache.hooks, leader)
})

t.test('a no-cache request leads, and requests arriving meanwhile get its fresh answer', async (t) => {
  const cache = await setupCache(t)
  await send(cache, request(), 'old')
  const fresh = request({ headers: { 'cache-control': 'no-cache' } })
  t.equal(await cache.hooks.onRequest!(fresh), undefined)
  const hit = cachedResult(await cache.hooks.onRequest!(request()))
  t.equal(hit?.text, 'old', 'the stored answer is still served to others while the refresh runs')
  await cache.hooks.onAnswered!(fresh, answer('new'), undefined)
  complete(cache.hooks, fresh)
  await cache.flush()
  t.equal(cachedResult(await cache.hooks.onRequest!(request()))?.text, 'new')
})
