// Scans texts for findings: short ones inline, long ones in the worker pool (in parallel). The
// pool's OverloadedError (a full queue) is passed on untouched so the client gets 503.
import type { WorkerPool } from '../../proxy/pool.ts'
import { scanContent, type Finding } from '../../workers/scan-content.ts'

export interface ScanLimits {
  /** Longest text scanned on the event loop. */
  readonly inlineMaxChars: number
  /** Most characters scanned on the event loop per call; further texts go to the pool. */
  readonly inlineBudgetChars: number
}

export interface ScannedTexts {
  /** Findings per text, offsets into that text. */
  readonly findings: readonly (readonly Finding[])[]
  readonly pooled: number
}

export async function scanTexts(texts: readonly string[], pool: WorkerPool, limits: ScanLimits, signal: AbortSignal): Promise<ScannedTexts> {
  const findings: Finding[][] = new Array(texts.length)
  const inline: number[] = []
  const pooled: number[] = []
  let budget = limits.inlineBudgetChars
  texts.forEach((text, index) => {
    if (text.length <= limits.inlineMaxChars && text.length <= budget) {
      budget -= text.length
      inline.push(index)
    } else {
      pooled.push(index)
    }
  })
  if (pooled.length === 0) {
    for (const index of inline) findings[index] = scanContent({ text: texts[index]! })
    return { findings, pooled: 0 }
  }
  // The first failure (a full queue, an abort) cancels the other tasks of this call.
  const cancel = new AbortController()
  const taskSignal = AbortSignal.any([signal, cancel.signal])
  const tasks = pooled.map((index) =>
    pool.run('scanContent', { text: texts[index]! }, taskSignal).then((found) => {
      findings[index] = found
    }),
  )
  const settled = Promise.all(tasks).catch((err: unknown) => {
    cancel.abort()
    throw err
  })
  try {
    // Inline scans run while the workers do theirs.
    for (const index of inline) findings[index] = scanContent({ text: texts[index]! })
  } catch (err) {
    cancel.abort()
    settled.catch(() => undefined)
    throw err
  }
  await settled
  return { findings, pooled: pooled.length }
}
