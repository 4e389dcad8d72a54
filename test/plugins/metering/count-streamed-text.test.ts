import t from 'tap'
import { OverloadedError } from '../../../proxy/pipeline/errors.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import { countStreamedTexts, METERING_INLINE, type PoolRefusal } from '../../../plugins/metering/count-streamed-text.ts'
import { countTokens } from '../../../workers/count-tokens.ts'

function countingPool(error?: Error): Pick<WorkerPool, 'run'> & { calls: number } {
  const pool = {
    calls: 0,
    run: (async (_task: string, input: readonly string[]) => {
      pool.calls++
      if (error !== undefined) throw error
      return input.map(countTokens)
    }) as WorkerPool['run'],
  }
  return pool
}

const TIMEOUT_MS = 10_000

const sentence = 'A streamed answer is metered for every token the model generated. '
const long = sentence.repeat(1000)

t.test('short texts within the budget are counted inline, at once, without the pool', async (t) => {
  const pool = countingPool()
  const texts = ['a few words', sentence]
  const counts = countStreamedTexts(texts, pool, () => t.fail('no refusal'), TIMEOUT_MS)
  t.same(counts, texts.map(countTokens), 'the counts, synchronously')
  t.equal(pool.calls, 0)
})

t.test('a long text, and short ones past the budget, are counted in the pool, exactly', async (t) => {
  const pool = countingPool()
  const short = 'x '.repeat(METERING_INLINE.maxInline / 2)
  const texts = [short, long, short]
  const counts = countStreamedTexts(texts, pool, () => t.fail('no refusal'), TIMEOUT_MS)
  t.ok(counts instanceof Promise, 'a promise')
  t.same(await counts, texts.map(countTokens))
  t.ok(pool.calls >= 1)
})

t.test('a pool that refuses or fails its tasks loses no usage: they are counted inline, and each refusal is told', async (t) => {
  for (const [error, reason] of [
    [new OverloadedError('The worker pool queue is full; retry shortly.'), 'overloaded'],
    [new Error('worker died'), 'failed'],
  ] as const) {
    const pool = countingPool(error)
    const refusals: PoolRefusal[] = []
    const texts = [long, long.slice(7)]
    t.same(await countStreamedTexts(texts, pool, (why) => refusals.push(why), TIMEOUT_MS), texts.map(countTokens), `${reason}: the exact counts`)
    t.ok(refusals.length >= 1 && refusals.every((why) => why === reason), `${reason}: told ${refusals.length} times`)
  }
})

t.test('a pool task that does not finish in time is counted inline, and the timeout is told', async (t) => {
  const signals: AbortSignal[] = []
  // A worker that never answers: the task ends only when its signal aborts it.
  const hung: Pick<WorkerPool, 'run'> = {
    run: ((_task: string, _input: unknown, signal?: AbortSignal) =>
      new Promise((_resolve, reject) => {
        signals.push(signal!)
        signal!.addEventListener('abort', () => reject(signal!.reason))
      })) as WorkerPool['run'],
  }
  const refusals: PoolRefusal[] = []
  const texts = [long]
  // AbortSignal.timeout's timer does not keep a process alive; a gateway's server does, here this.
  const alive = setInterval(() => undefined, 1000)
  t.teardown(() => clearInterval(alive))
  t.same(await countStreamedTexts(texts, hung, (why) => refusals.push(why), 20), texts.map(countTokens), 'the exact counts')
  t.ok(signals.length >= 1 && signals.every((signal) => signal.aborted), 'every task was given a signal that ran out')
  t.ok(refusals.length >= 1 && refusals.every((why) => why === 'timeout'), `told ${refusals.length} times`)
})
