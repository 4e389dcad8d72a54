import t from 'tap'
import { countTokensInPool, TASK_CHARS } from '../../../proxy/pipeline/count-tokens-in-pool.ts'
import type { WorkerPool } from '../../../proxy/kit/pool.ts'
import { countTokens } from '../../../workers/count-tokens.ts'

/** Runs tasks in this thread and keeps each task's texts. */
function recordingPool(fail?: (texts: readonly string[]) => Error | undefined): Pick<WorkerPool, 'run'> & { tasks: string[][] } {
  const tasks: string[][] = []
  const run = async (_task: string, input: readonly string[]): Promise<number[]> => {
    tasks.push([...input])
    const error = fail?.(input)
    if (error !== undefined) throw error
    return input.map(countTokens)
  }
  return { run: run as WorkerPool['run'], tasks }
}

const sentence = 'Metering counts what the model generated, even when the stream is cut. '

t.test('counts each text exactly, a long one cut into parts across tasks of at most TASK_CHARS', async (t) => {
  const long = sentence.repeat(Math.ceil((2.5 * TASK_CHARS) / sentence.length))
  const texts = ['short', long, sentence.repeat(10)]
  const pool = recordingPool()
  const counts = await countTokensInPool(texts, pool, {
    onTaskError: (_texts, err) => {
      throw err
    },
  })
  t.same(counts, texts.map(countTokens))
  t.ok(pool.tasks.length >= 3, `${pool.tasks.length} tasks`)
  t.ok(
    pool.tasks.every((task) => task.join('').length <= TASK_CHARS),
    'no task holds more than TASK_CHARS characters',
  )
})

t.test('many short texts share a few tasks', async (t) => {
  const texts = Array.from({ length: 100 }, (_, i) => `${sentence.repeat(20)} ${i}`)
  const pool = recordingPool()
  t.same(
    await countTokensInPool(texts, pool, {
      onTaskError: (_texts, err) => {
        throw err
      },
    }),
    texts.map(countTokens),
  )
  t.equal(pool.tasks.length, Math.ceil(texts.join('').length / TASK_CHARS))
})

t.test('a failed task is counted as onTaskError says; throwing there fails the call', async (t) => {
  const texts = ['first text', 'second text']
  const failing = recordingPool(() => new Error('worker died'))
  t.same(await countTokensInPool(texts, failing, { onTaskError: (failed) => failed.map((text) => text.length) }), [10, 11])
  await t.rejects(
    countTokensInPool(texts, failing, {
      onTaskError: (_texts, err) => {
        throw err
      },
    }),
    /worker died/,
  )
})
