// Token counts of texts in the worker pool, in tasks of bounded size: a long text is cut into
// parts where the count does not change (partsOf), and parts are grouped into tasks of at most
// TASK_CHARS characters, so the threads share a long text and a request with many texts takes a
// few places in the bounded queue rather than one per text. What the event loop counts is the
// callers' choice; this file only sends and adds up.
import type { WorkerPool } from '../kit/pool.ts'
import { partsOf } from '../../workers/count-tokens.ts'

/** Characters per task: well under a second at the worst (random CJK, ~5 µs a character). */
export const TASK_CHARS = 32_768

interface PoolCounting {
  /** The signal of each task, asked once per task (so each may carry a timeout of its own). */
  readonly signal?: () => AbortSignal
  /** A failed task's counts, one per text, instead of its result; throwing fails the whole call. */
  readonly onTaskError: (texts: readonly string[], error: unknown) => readonly number[]
}

interface Part {
  readonly text: number
  readonly part: string
}

/** Groups parts into tasks of at most TASK_CHARS characters (a longer part alone). */
function tasksOf(parts: readonly Part[]): Part[][] {
  const tasks: Part[][] = []
  let current: Part[] = []
  let chars = 0
  for (const part of parts) {
    if (chars + part.part.length > TASK_CHARS && current.length > 0) {
      tasks.push(current)
      current = []
      chars = 0
    }
    current.push(part)
    chars += part.part.length
  }
  if (current.length > 0) tasks.push(current)
  return tasks
}

/** The token count of each text, counted in the pool. */
export async function countTokensInPool(texts: readonly string[], pool: Pick<WorkerPool, 'run'>, counting: PoolCounting): Promise<number[]> {
  const counts = texts.map(() => 0)
  const parts = texts.flatMap((text, index) => partsOf(text, TASK_CHARS).map((part) => ({ text: index, part })))
  await Promise.all(
    tasksOf(parts).map(async (task) => {
      const taskTexts = task.map(({ part }) => part)
      let tokens: readonly number[]
      try {
        tokens = await pool.run('countTexts', taskTexts, counting.signal?.())
      } catch (err) {
        tokens = counting.onTaskError(taskTexts, err)
      }
      task.forEach(({ text }, i) => {
        counts[text] = counts[text]! + tokens[i]!
      })
    }),
  )
  return counts
}
