import t from 'tap'
import { OverloadedError } from '../../../proxy/errors.ts'
import type { WorkerPool } from '../../../proxy/pool.ts'
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

const sentence = 'A streamed answer is metered for every token the model generated. '
const long = sentence.repeat(1000)

t.test('short texts within the budget are counted inline, at once, without the pool', async (t) => {
  const pool = countingPool()
  const texts = ['a few words', sentence]
  const counts = countStreamedTexts(texts, pool, () => t.fail('no refusal'))
  t.same(counts, texts.map(countTokens), 'the counts, synchronously')
  t.equal(pool.calls, 0)
})

t.test('a long text, and short ones past the budget, are counted in the pool, exactly', async (t) => {
  const pool = countingPool()
  const short = 'x '.repeat(METERING_INLINE.maxInline / 2)
  const texts = [short, long, short]
  const counts = countStreamedTexts(texts, pool, () => t.fail('no refusal'))
  t.ok(counts instanceof Promise, 'a promise')
  t.same(await counts, texts.map(countTokens))
  t.ok(pool.calls >= 1)
})

t.test('a pool that refuses or fails its tasks loses no usage: they are counted inline, and each refusal is told', async (t) => {
  for (const [error, reason] of [[new OverloadedError('The worker pool queue is full; retry shortly.'), 'overloaded'], [new Error('worker died'), 'failed']] as const) {
    const pool = countingPool(error)
    const refusals: PoolRefusal[] = []
    const texts = [long, long.slice(7)]
    t.same(await countStreamedTexts(texts, pool, (why) => refusals.push(why)), texts.map(countTokens), `${reason}: the exact counts`)
    t.ok(refusals.length >= 1 && refusals.every((why) => why === reason), `${reason}: told ${refusals.length} times`)
  }
})
