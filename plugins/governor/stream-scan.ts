// Where a streamed answer's window is scanned: on the event loop when it is short, as it is for a
// token-by-token stream (no promise, no pool round trip per chunk), in the worker pool when it is
// long (a provider's or a replay's large chunk, a long held-back value, the stream's end, tool
// calls checked whole), so that no scan holds the loop much longer than a millisecond.
// With the pool's queue full the stream is stopped: text that could not be scanned is not let
// out, and scanning it inline instead would hold the loop as long as the window takes.
import type { Histogram } from 'prom-client'
import { OverloadedError } from '../../proxy/pipeline/errors.ts'
import type { WorkerPool } from '../../proxy/kit/pool.ts'
import { StreamStop } from '../../proxy/pipeline/stream-stop.ts'
import { scanContent, type EntityType, type Finding } from '../../workers/scan-content.ts'
import type { Scan } from './logic/stream/stream-guard.ts'

/**
 * Longest window scanned on the event loop. scanContent measured on a 2-core x86-64, Node 24,
 * busy with other work, median time per scan over two runs:
 *   2 KiB: prose 0.23 ms, source code 0.22–0.26, the support-desk message with personal data
 *          0.59–0.62, a log of base64 runs (the decoder's worst case) 0.46–0.95
 *   4 KiB: 0.43–1.5 ms · 8 KiB: 1.5–2.1 ms
 * 2 KiB is the largest that stays well under 2 ms on every kind of text. A token-by-token
 * stream's windows (the look back and a few tokens, ~30 µs) stay far below it.
 */
export const INLINE_WINDOW_CHARS = 2048

/** What plain prose can hold (logic/stream/hold.ts, isPlainProse). */
const PHRASE_TYPES: readonly EntityType[] = ['PROMPT_INJECTION']

interface StreamScanDeps {
  readonly pool: WorkerPool
  /** The learned prompt-injection model decides what the rules leave undecided. */
  readonly learned: boolean
  /** Seconds per scan, by where it ran: `stream` on the event loop, `stream_pool` in the pool. */
  readonly scanSeconds: Histogram<'where'>
}

export function createStreamScan(deps: StreamScanDeps): (signal: AbortSignal) => Scan {
  // Bound once: a stream observes them for every window it scans.
  const inlineSeconds = deps.scanSeconds.labels({ where: 'stream' })
  const pooledSeconds = deps.scanSeconds.labels({ where: 'stream_pool' })

  return (signal) => (text, phrasesOnly) => {
    const input = phrasesOnly ? { text, types: PHRASE_TYPES, learned: deps.learned } : { text, learned: deps.learned }
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
        throw new StreamStop(
          new OverloadedError(
            `The answer was stopped: the worker pool's queue was full, so its next ${text.length} characters could not be checked, and unchecked text is not let out. Retry shortly.`,
          ),
        )
      },
    )
  }
}

/**
 * A Scan that answers from the findings of a scan of the whole of `text`: the guard's windows run
 * to the end of the text it has, so the last one starts `window.length` before its end. Findings
 * that begin before the window are left out, as a scan of the window alone would not see them.
 */
export function scanOfWhole(text: string, findings: readonly Finding[]): Scan {
  return (window, phrasesOnly) => {
    const from = text.length - window.length
    return findings
      .filter((f) => f.start >= from && (!phrasesOnly || PHRASE_TYPES.includes(f.type)))
      .map((f) => ({ ...f, start: f.start - from, end: f.end - from }))
  }
}
