import t from 'tap'
import { Registry } from 'prom-client'
import { createPool } from '../../../proxy/kit/pool.ts'
import { encodeCacheKey } from '../../../plugins/cache/logic/cache-key.ts'
import { hashCacheKey } from '../../../workers/hash-cache-key.ts'
import { answer, ask, cachedResult, complete, project, request, setupCache } from './fixtures.ts'

t.test('a request above poolThresholdBytes is keyed in the worker pool with the same key as inline', async (t) => {
  const pool = createPool({ maxThreads: 1, maxQueue: 16, idleTimeoutMs: 1000 }, new Registry())
  t.teardown(() => pool.close())
  const cache = await setupCache(t, { poolThresholdBytes: 1024 }, pool)
  const long = 'A long prompt. '.repeat(200)
  const ctx = request({ ai: ask(long) })
  const pending = cache.hooks.onRequest!(ctx)
  t.ok(pending instanceof Promise, 'the key is computed off the event loop')
  t.equal(await pending, undefined)
  t.equal(
    ctx.state.cache?.key,
    hashCacheKey(
      encodeCacheKey({
        projectId: project().id,
        provider: 'local',
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: long }],
        temperature: 0.7,
        maxTokens: 1000,
        mode: 'text',
        governorVersion: null,
      }),
    ),
  )
  await cache.hooks.onAnswered!(ctx, answer('a long answer'), undefined)
  complete(cache.hooks, ctx)
  await cache.flush()
  t.equal(cachedResult(await cache.hooks.onRequest!(request({ ai: ask(long) })))?.text, 'a long answer')
})

t.test('a request at or below poolThresholdBytes is keyed inline, without waiting', async (t) => {
  const cache = await setupCache(t, { poolThresholdBytes: 1024 })
  t.equal(cache.hooks.onRequest!(request({ ai: ask('short') })), undefined)
})
