// Token counts of streamed text for metering (a checkpoint's new text, a cut stream's whole text),
// with the event loop's share bounded like the Governor's scans: short texts inline, up to a
// budget per call, the rest in the worker pool (count-tokens-in-pool.ts). Usage is never lost to
// the pool: a task it refuses (a full queue), fails or does not finish in time is counted inline,
// correctness over the bound.
import { countTokensInPool } from '../../proxy/pipeline/count-tokens-in-pool.ts'
import { OverloadedError } from '../../proxy/pipeline/errors.ts'
import { inlineOrPooled, type InlineLimits } from '../../proxy/pipeline/inline-or-pooled.ts'
import type { WorkerPool } from '../../proxy/kit/pool.ts'
import { countTexts, countTokens } from '../../workers/count-tokens.ts'

// countTokens measured on a 2-core x86-64, Node 24, under other load (p50–p90): English prose
// 512 chars 0.10–0.17 ms, 1 KiB 0.19–0.28 ms, 8 KiB 1.8–6 ms, 64 KiB 12–14 ms; random CJK, the
// slowest text, 512 chars 1.7–1.9 ms. A pool round trip holds the loop 10–30 µs (see the
// Governor's schema), so anything longer than a short chat turn is cheaper for the loop in the
// pool; 512 characters a text and per call keep the loop under ~2 ms even for CJK.
export const METERING_INLINE: InlineLimits = { maxInline: 512, budget: 512 }

export type PoolRefusal = 'overloaded' | 'failed' | 'timeout'

/**
 * Synchronous when every text is counted inline. Never rejects: `refused` hears of each pool
 * task that was counted inline instead. Texts are counted exactly as countTokens counts them.
 */
export function countStreamedTexts(
  texts: readonly string[],
  pool: Pick<WorkerPool, 'run'>,
  refused: (reason: PoolRefusal, error: unknown) => void,
  taskTimeoutMs: number,
  limits: InlineLimits = METERING_INLINE,
): number[] | Promise<number[]> {
  const { inline, pooled } = inlineOrPooled(
    texts.map((text) => text.length),
    limits,
  )
  const counts = texts.map(() => 0)
  const counted =
    pooled.length === 0
      ? undefined
      : countTokensInPool(
          pooled.map((index) => texts[index]!),
          pool,
          {
            signal: () => AbortSignal.timeout(taskTimeoutMs),
            onTaskError(taskTexts, err) {
              refused(reasonOf(err), err)
              return countTexts(taskTexts)
            },
          },
        )
  // Inline counts run while the workers do theirs.
  for (const index of inline) counts[index] = countTokens(texts[index]!)
  if (counted === undefined) return counts
  return counted.then((tokens) => {
    pooled.forEach((index, i) => {
      counts[index] = tokens[i]!
    })
    return counts
  })
}

function reasonOf(err: unknown): PoolRefusal {
  if (err instanceof OverloadedError) return 'overloaded'
  const name = (err as { name?: unknown } | null)?.name
  return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'failed'
}
