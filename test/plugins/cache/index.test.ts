import t, { type Test } from 'tap'
import { CHAT_ROUTE, COMPLETE_ROUTE } from '../../helpers/make-context.ts'
import { answer, ask, cachedResult, complete, project, request, send, setupCache as setupCacheOn } from './fixtures.ts'
import { REDIS_MISSING, startRedis } from '../../helpers/redis-server.ts'

// Every rule holds on both stores: LMDB, and Redis shared by several gateways.
for (const store of ['lmdb', 'redis'] as const)
  t.test(store, { skip: store === 'redis' && REDIS_MISSING }, async (t) => {
    const redisUrl = store === 'redis' ? (await startRedis(t)).url : undefined
    const setupCache = (t: Test, config: Parameters<typeof setupCacheOn>[1] = {}) => setupCacheOn(t, config, undefined, redisUrl)

    t.test('a repeated request is a miss and then a hit that costs nothing', async (t) => {
      const cache = await setupCache(t)
      const first = request()
      t.equal(await cache.hooks.onRequest!(first), undefined)
      t.match(first.state.cache, { hit: false, coalesced: false })
      await cache.hooks.onAnswered!(first, answer('General Kenobi.'), undefined)
      complete(cache.hooks, first)
      await cache.flush()

      const second = request()
      const hit = cachedResult(await cache.hooks.onRequest!(second))
      t.strictSame(hit, {
        text: 'General Kenobi.',
        provider: 'local',
        model: 'gpt-4o-mini',
        cacheHit: true,
        usage: { promptTokens: 5, completionTokens: 7, totalTokens: 12, costCents: 0 },
      })
      t.strictSame(second.state.cache, { key: first.state.cache!.key, hit: true, coalesced: false })
      t.equal(await cache.requests('miss'), 1)
      t.equal(await cache.requests('hit'), 1)
      t.equal(await cache.entries(), 1)
    })

    t.test("a request right after its twin's answer hits before the write has committed", async (t) => {
      const cache = await setupCache(t)
      const first = request()
      await cache.hooks.onRequest!(first)
      await cache.hooks.onAnswered!(first, answer('not yet on disk'), undefined)
      complete(cache.hooks, first)
      t.equal(cachedResult(await cache.hooks.onRequest!(request()))?.text, 'not yet on disk')
      t.equal(await cache.requests('hit'), 1)
      await cache.flush()
    })

    t.test("a hit is not stored again, so it does not extend the entry's life", async (t) => {
      const cache = await setupCache(t)
      const ttl = { project: project({ cacheTtlSeconds: 60 }) }
      await send(cache, request(ttl), 'first')
      cache.clock.advance(50_000)
      t.ok((await send(cache, request(ttl), 'second')).cacheHit)
      cache.clock.advance(20_000)
      t.equal(await cache.hooks.onRequest!(request(ttl)), undefined)
    })

    t.test('chat and complete with the same content share an entry', async (t) => {
      const cache = await setupCache(t)
      await send(cache, request({ route: COMPLETE_ROUTE }), 'shared')
      const hit = cachedResult(await cache.hooks.onRequest!(request({ route: CHAT_ROUTE })))
      t.equal(hit?.text, 'shared')
    })

    t.test('a request that differs in a field that changes the answer misses', async (t) => {
      const cache = await setupCache(t)
      await send(cache, request({ ai: ask('Hello there.') }), 'stored')
      t.equal(await cache.hooks.onRequest!(request({ ai: { ...ask('Hello there.'), temperature: 0.1 } })), undefined)
      t.equal(await cache.hooks.onRequest!(request({ ai: ask('Hello there!') })), undefined)
    })

    t.test("projects never see each other's entries", async (t) => {
      const cache = await setupCache(t)
      await send(cache, request({ project: project({ id: 'proj_a' }) }), 'for a')
      t.equal(await cache.hooks.onRequest!(request({ project: project({ id: 'proj_b' }) })), undefined)
    })

    t.test("a governed request misses once the project's governor settings change", async (t) => {
      const cache = await setupCache(t)
      const governed = { ...ask('Refund?'), governorMetadata: { actionType: 'refund_denial' as const, senderId: 'agent-7' } }
      const v1 = project()
      const v2 = project({ governor: { ...v1.governor, version: v1.governor.version + 1 } })
      await send(cache, request({ ai: governed, project: v1 }), 'verdict under v1')
      t.equal(cachedResult(await cache.hooks.onRequest!(request({ ai: governed, project: v1 })))?.text, 'verdict under v1')
      t.equal(await cache.hooks.onRequest!(request({ ai: governed, project: v2 })), undefined)
    })

    t.test('Cache-Control no-cache skips the stored answer and stores the fresh one', async (t) => {
      const cache = await setupCache(t)
      await send(cache, request(), 'old')
      const refresh = request({ headers: { 'cache-control': 'no-cache' } })
      t.equal((await send(cache, refresh, 'new')).text, 'new')
      t.match(refresh.state.cache, { hit: false })
      t.equal(cachedResult(await cache.hooks.onRequest!(request()))?.text, 'new')
      t.equal(await cache.requests('bypass'), 1)
      t.equal(await cache.entries(), 1)
    })

    t.test('Cache-Control no-store neither serves nor stores', async (t) => {
      const cache = await setupCache(t)
      await send(cache, request(), 'kept')
      const unstored = request({ headers: { 'cache-control': 'no-store' } })
      t.equal((await send(cache, unstored, 'not kept')).text, 'not kept')
      t.equal(unstored.state.cache, undefined)
      t.equal(cachedResult(await cache.hooks.onRequest!(request()))?.text, 'kept')

      await send(cache, request({ ai: ask('Secret'), headers: { 'cache-control': 'no-store' } }), 'secret answer')
      t.equal(await cache.hooks.onRequest!(request({ ai: ask('Secret') })), undefined)
      t.equal(await cache.entries(), 1)
    })

    t.test('a project with the cache turned off neither serves nor stores', async (t) => {
      const cache = await setupCache(t)
      const off = project({ cacheEnabled: false })
      await send(cache, request({ project: off }), 'one')
      t.notOk((await send(cache, request({ project: off }), 'two')).cacheHit)
      t.equal(await cache.entries(), 0)
      t.equal(await cache.requests('bypass'), 2)
    })

    t.test('with the cache disabled in the config the plugin adds no hooks', async (t) => {
      const cache = await setupCache(t, { enabled: false })
      t.strictSame(cache.hooks, {})
    })

    t.test("an entry expires after the project's TTL and is removed", async (t) => {
      const cache = await setupCache(t)
      const ttl = { project: project({ cacheTtlSeconds: 60 }) }
      await send(cache, request(ttl), 'fresh')
      cache.clock.advance(59_999)
      t.equal(cachedResult(await cache.hooks.onRequest!(request(ttl)))?.text, 'fresh')
      cache.clock.advance(1)
      const expired = request(ttl)
      t.equal(await cache.hooks.onRequest!(expired), undefined)
      complete(cache.hooks, expired, 'upstream_error')
      await cache.flush()
      t.equal(await cache.entries(), 0)
      t.equal(await cache.requests('miss'), 2)
    })

    t.test("a project's new TTL applies to entries stored before the change", async (t) => {
      const cache = await setupCache(t)
      await send(cache, request({ project: project({ cacheTtlSeconds: 3600 }) }), 'stored under an hour')
      cache.clock.advance(61_000)
      t.equal(await cache.hooks.onRequest!(request({ project: project({ cacheTtlSeconds: 60 }) })), undefined)
    })

    t.test('beyond maxEntries the oldest stored entries are evicted', async (t) => {
      const cache = await setupCache(t, { maxEntries: 3 })
      for (const n of [1, 2, 3, 4, 5]) {
        await send(cache, request({ ai: ask(`question ${n}`) }), `answer ${n}`)
        cache.clock.advance(1000)
      }
      t.equal(await cache.entries(), 3)
      for (const n of [1, 2]) {
        const ctx = request({ ai: ask(`question ${n}`) })
        t.equal(await cache.hooks.onRequest!(ctx), undefined, `question ${n} was evicted`)
        complete(cache.hooks, ctx, 'upstream_error')
      }
      for (const n of [3, 4, 5]) {
        t.equal(cachedResult(await cache.hooks.onRequest!(request({ ai: ask(`question ${n}`) })))?.text, `answer ${n}`)
      }
    })

    t.test('an entry stored again is evicted by its latest storing time', async (t) => {
      const cache = await setupCache(t, { maxEntries: 2 })
      const asking = (q: string, headers: Record<string, string> = {}) => request({ ai: ask(q), headers })
      await send(cache, asking('a'), 'a1')
      cache.clock.advance(1000)
      await send(cache, asking('b'), 'b1')
      cache.clock.advance(1000)
      await send(cache, asking('a', { 'cache-control': 'no-cache' }), 'a2')
      cache.clock.advance(1000)
      await send(cache, asking('c'), 'c1')
      t.equal(await cache.entries(), 2)
      t.equal(cachedResult(await cache.hooks.onRequest!(asking('a')))?.text, 'a2')
      t.equal(cachedResult(await cache.hooks.onRequest!(asking('c')))?.text, 'c1')
      t.equal(await cache.hooks.onRequest!(asking('b')), undefined)
    })
  })
