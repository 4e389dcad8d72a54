// Where a streamed answer's window is scanned: on the event loop when it is short, as it is for a
// token-by-token stream (no promise, no pool round trip per chunk), in the worker pool when it is
// long (a provider's or a replay's large chunk, a long held-back value, the stream's end, tool
// calls checked whole), so that no scan holds the loop longer than ~1 ms.
// With the pool's queue full the stream is stopped: text that could not be scanned is not let
// out, and scanning it inline instead would hold the loop as long as the window takes.
import type { Histogram } from 'prom-client'
import { OverloadedError } from '../../../proxy/errors.ts'
import type { WorkerPool } from '../../../proxy/pool.ts'
import { StreamStop } from '../../../proxy/stream-stop.ts'
import { scanContent, type EntityType, type Finding } from '../../../workers/scan-content.ts'
import type { Scan } from './stream-guard.ts'

/**
 * Longest window scanned on the event loop. Measured with scanContent on a 2-core x86-64,
 * Node 24, under load (CPU time per scan, fastest run): 2 KiB windows take 0.26 ms of prose,
 * 0.33 ms of source code, 1.0 ms of the support-desk message with personal data, 1.3 ms of a
 * log of base64 runs (0.19–0.66 ms fastest); 4 KiB ones 0.45–1.55 ms, 8 KiB 1.3–2.0 ms.
 * A normal stream's windows (the look back and a few tokens) stay far below it.
 */
export const INLINE_WINDOW_CHARS = 2048

/** What plain prose can hold (stream/hold.ts, isPlainProse). */
const PHRASE_TYPES: readonly EntityType[] = ['PROMPT_INJECTION']

export interface StreamScanDeps {
  readonly pool: WorkerPool
  /** Seconds per scan, by where it ran: `stream` on the event loop, `stream_pool` in the pool. */
  readonly scanSeconds: Histogram<'where'>
}

export function createStreamScan(deps: StreamScanDeps): (signal: AbortSignal) => Scan {
  // Bound once: a stream observes them for every window it scans.
  const inlineSeconds = deps.scanSeconds.labels({ where: 'stream' })
  const pooledSeconds = deps.scanSeconds.labels({ where: 'stream_pool' })

  return (signal) => (text, phrasesOnly) => {
    const input = phrasesOnly ? { text, types: PHRASE_TYPES } : { text }
    const started = performance.now()
    if (text.length <= INLINE_WINDOW_CHARS) {
      const findings = scanContent(input)
      inlineSeconds.observe((performance.now() - started) / 1000)
      return findings
    }
    return deps.pool.run('scanContent', input, signal).then(
      (findings: readonly Finding[]) => {
        pooledSeconds.observe((performance.now() - started) / 1000)
        return findings
      },
      (err: unknown) => {
        if (!(err instanceof OverloadedError)) throw err
        throw new StreamStop(new OverloadedError(
          `The answer was stopped: the worker pool's queue was full, so its next ${text.length} characters could not be checked, and unchecked text is not let out. Retry shortly.`,
        ))
      },
    )
  }
}
