// A prompt whose byte bound overflows the model's window is decided on its exact count, however
// busy the worker pool: a slow pool delays the verdict, a pool past the deadline gets a 503 that
// asks for a retry, and never does a byte estimate stand in for the count.
import t, { type Test } from 'tap'
import { OverloadedError } from '../../../proxy/pipeline/errors.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import type { Reply } from '../../../proxy/http/reply.ts'
import { countTokens } from '../../../workers/count-tokens.ts'
import { makeContext } from '../../helpers/make-context.ts'
import { authState, caught, inlinePool, startRouter, user } from './fixtures.ts'

/** A pool that answers each task after `delayMs` or fails it; an aborted task rejects as piscina's do. */
function stalledPool(delayMs: number, failure?: Error): WorkerPool & { readonly aborted: number[] } {
  const aborted: number[] = []
  const run = (_task: string, input: readonly string[], signal?: AbortSignal) =>
    new Promise<number[]>((resolve, reject) => {
      if (failure !== undefined) return reject(failure)
      const timer = setTimeout(() => resolve(input.map(countTokens)), delayMs)
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          aborted.push(input.length)
          reject(Object.assign(new Error('The task has been aborted'), { name: 'AbortError' }))
        },
        { once: true },
      )
    })
  return { run: run as WorkerPool['run'], queueSize: 0, utilization: 0, close: async () => {}, aborted }
}

// 360 KB of prose to claude-3-haiku (200,000 tokens): its byte bound does not fit, its count does.
const long = 'lorem ipsum '.repeat(30_000)
const request = () => makeContext({ state: { auth: authState(false) }, ai: { quality: 'cheap', messages: [user(long)], maxTokens: 1000 } })

async function verdict(t: Test, pool: WorkerPool, config = {}) {
  const hooks = await startRouter(t, config, pool)
  const ctx = request()
  const reply = (await hooks.onRequest?.(ctx)) as Reply | undefined
  return { reply: reply?.kind === 'error' ? reply.error.error : reply, promptTokens: ctx.state.router?.promptTokens }
}

t.test('a pool slower than a second gives a long prompt the verdict a quick pool gives', async (t) => {
  const quick = await verdict(t, inlinePool())
  t.same(quick, { reply: undefined, promptTokens: countTokens(long) + 4 }, 'admitted on its count')
  t.same(await verdict(t, stalledPool(1500)), quick, 'the same verdict and count, only later')
})

t.test('a count not done by countTimeoutMs is a retryable 503, never a verdict on the byte bound', async (t) => {
  const pool = stalledPool(60_000)
  const err = await caught(verdict(t, pool, { countTimeoutMs: 50 }))
  t.ok(err instanceof OverloadedError, 'Service overloaded')
  t.match(err, { status: 503, code: 'overloaded', message: /could not be counted within 0\.05 s/ })
  t.same((err as OverloadedError).headers(), { 'retry-after': '1' })
  t.ok(pool.aborted.length > 0, 'its tasks are stopped')
})

t.test('a pool that fails a task is a retryable 503 too', async (t) => {
  const err = await caught(verdict(t, stalledPool(0, new Error('worker exited'))))
  t.match(err, { status: 503, code: 'overloaded', cause: { message: 'worker exited' } })
})
