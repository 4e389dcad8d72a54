// Scans texts for findings: short ones inline, long ones in the worker pool. The pooled texts of
// one call are sent as a few batches rather than one task each, so a request with many long
// messages takes a few places in the pool's queue instead of filling it (the queue is bounded;
// one task per text made ~512 messages over 1 KB a 503 on an idle gateway). A few batches rather
// than one keep the threads working in parallel. The pool's OverloadedError (a full queue) is
// passed on untouched so the client gets 503. With a project's own classifier every text goes to
// the pool, where the classifier runs in the same task as the rules.
import { inlineOrPooled } from '../../proxy/pipeline/inline-or-pooled.ts'
import type { WorkerPool } from '../../proxy/kit/pool.ts'
import { scanContent, type Finding } from '../../workers/scan-content.ts'
import type { ClassifierSettings } from '../../workers/scan/classifier/classifier.ts'

/** Most pool tasks one call makes: enough to keep every thread busy on a large request. */
export const MAX_BATCHES_PER_CALL = 4
/** Texts are grouped until a batch holds this many characters (~6 ms of scanning), or more when the cap above needs it. */
const BATCH_CHARS = 32 * 1024
const NOTHING_INLINE = { maxInline: -1, budget: -1 }

export interface ScanLimits {
  /** Longest text scanned on the event loop. */
  readonly inlineMaxChars: number
  /** Most characters scanned on the event loop per call; further texts go to the pool. */
  readonly inlineBudgetChars: number
  /** The learned prompt-injection model decides what the rules leave undecided. */
  readonly learned: boolean
  /** The project's own classifier reads what the rules leave undecided (in the pool only). */
  readonly classifier?: ClassifierSettings | undefined
}

interface ScannedTexts {
  /** Findings per text, offsets into that text. */
  readonly findings: readonly (readonly Finding[])[]
  readonly pooled: number
}

export async function scanTexts(texts: readonly string[], pool: WorkerPool, limits: ScanLimits, signal: AbortSignal): Promise<ScannedTexts> {
  const findings: Finding[][] = new Array(texts.length)
  const inlineLimits = limits.classifier === undefined ? { maxInline: limits.inlineMaxChars, budget: limits.inlineBudgetChars } : NOTHING_INLINE
  const { inline, pooled } = inlineOrPooled(
    texts.map((text) => text.length),
    inlineLimits,
  )
  if (pooled.length === 0) {
    for (const index of inline) findings[index] = scanContent({ text: texts[index]!, learned: limits.learned })
    return { findings, pooled: 0 }
  }
  // The first failure (a full queue, an abort) cancels the other tasks of this call.
  const cancel = new AbortController()
  const taskSignal = AbortSignal.any([signal, cancel.signal])
  const tasks = batchesOf(pooled, texts).map((batch) =>
    pool
      .run(
        'scanContentBatch',
        { texts: batch.map((index) => texts[index]!), learned: limits.learned, ...(limits.classifier === undefined ? {} : { classifier: limits.classifier }) },
        taskSignal,
      )
      .then((found) => {
        batch.forEach((index, i) => {
          findings[index] = found[i]!
        })
      }),
  )
  const settled = Promise.all(tasks).catch((err: unknown) => {
    cancel.abort()
    throw err
  })
  try {
    // Inline scans run while the workers do theirs.
    for (const index of inline) findings[index] = scanContent({ text: texts[index]!, learned: limits.learned })
  } catch (err) {
    cancel.abort()
    settled.catch(() => undefined)
    throw err
  }
  await settled
  return { findings, pooled: pooled.length }
}

/** Consecutive runs of the pooled texts' indexes, at most MAX_BATCHES_PER_CALL of them, of similar size in characters. */
export function batchesOf(indexes: readonly number[], texts: readonly string[]): number[][] {
  const total = indexes.reduce((sum, index) => sum + texts[index]!.length, 0)
  const target = Math.max(BATCH_CHARS, Math.ceil(total / MAX_BATCHES_PER_CALL))
  const batches: number[][] = []
  let current: number[] = []
  let size = 0
  for (const index of indexes) {
    current.push(index)
    size += texts[index]!.length
    if (size >= target && batches.length < MAX_BATCHES_PER_CALL - 1) {
      batches.push(current)
      current = []
      size = 0
    }
  }
  if (current.length > 0) batches.push(current)
  return batches
}
