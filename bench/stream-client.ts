// A small undici client for what autocannon cannot measure: the time to the first byte of a
// streamed answer and to its first text (the first token), the longest silence inside it, and whether it ended as a finished stream
// (its last event arrived) rather than a cut one. One request at a time per connection; the
// request is the same bytes every time.
import { performance } from 'node:perf_hooks'
import { Pool, type Dispatcher } from 'undici'
import type { LoadRequest } from './probe.ts'

export interface StreamSample {
  /** From sending the request to the first byte of the body. */
  readonly ttfbMs: number
  /**
   * From sending the request to the first chunk with the answer's text in it (the first token);
   * NaN without a text marker. A proxy may relay a provider's empty opening event at once, or
   * send nothing before the first text, so only this time compares what a client waits for.
   */
  readonly ttftMs: number
  /** From sending the request to the last byte. */
  readonly totalMs: number
  /** Longest wait for anything (headers, a chunk, the end) after the request was sent. */
  readonly maxGapMs: number
  /** A 2xx status, and the body ends with the expected last event when one is expected. */
  readonly isComplete: boolean
  /** Set when the exchange failed or the stream was cut. */
  readonly problem?: string
  /** performance.now() when the request was sent. */
  readonly startedAt: number
}

export interface StreamTarget {
  readonly load: LoadRequest
  /** Text the last bytes of a finished answer contain (`event: done`, `[DONE]`); none for JSON. */
  readonly endMarker?: string
  /** What the first chunk carrying some of the answer's text matches (read as latin1). */
  readonly textMarker?: RegExp
}

const TAIL_BYTES = 512

function endsWith(previous: Buffer | undefined, last: Buffer | undefined, marker: string): boolean {
  if (last === undefined) return false
  const tail = previous === undefined ? last : Buffer.concat([previous.subarray(-TAIL_BYTES), last])
  return tail.subarray(-TAIL_BYTES).includes(marker)
}

/** A keep-alive pool of `connections` sockets to the target's origin. */
export function poolFor(target: StreamTarget, connections: number): Pool {
  // Timeouts far beyond any answer here: a stall is measured, not cut short.
  return new Pool(new URL(target.load.url).origin, { connections, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000, keepAliveTimeout: 60_000 })
}

/** Sends the target's request once through `dispatcher` and times the answer. */
export function sendOnce(dispatcher: Dispatcher, target: StreamTarget): Promise<StreamSample> {
  const url = new URL(target.load.url)
  const marker = target.endMarker
  return new Promise<StreamSample>((resolve) => {
    const startedAt = performance.now()
    let last = startedAt
    let maxGapMs = 0
    let firstByteAt = Number.NaN
    let firstTextAt = Number.NaN
    let status = 0
    // The last two chunks: enough to find an end marker that straddles a chunk boundary.
    let previousChunk: Buffer | undefined
    let lastChunk: Buffer | undefined
    const tick = (): number => {
      const now = performance.now()
      if (now - last > maxGapMs) maxGapMs = now - last
      last = now
      return now
    }
    const finish = (isComplete: boolean, problem?: string) => {
      const now = tick()
      const sample = { ttfbMs: firstByteAt - startedAt, ttftMs: firstTextAt - startedAt, totalMs: now - startedAt, maxGapMs, isComplete, startedAt }
      resolve(problem === undefined ? sample : { ...sample, problem })
    }
    dispatcher.dispatch(
      { origin: url.origin, path: `${url.pathname}${url.search}`, method: target.load.method, headers: target.load.headers, body: target.load.body ?? null },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          tick()
          status = statusCode
        },
        onResponseData(_controller, chunk) {
          const now = tick()
          if (Number.isNaN(firstByteAt)) firstByteAt = now
          if (Number.isNaN(firstTextAt) && target.textMarker?.test(chunk.toString('latin1')) === true) firstTextAt = now
          previousChunk = lastChunk
          lastChunk = chunk
        },
        onResponseEnd() {
          if (status < 200 || status >= 300) finish(false, `status ${status}`)
          else if (marker !== undefined && !endsWith(previousChunk, lastChunk, marker)) finish(false, `ended without ${marker}`)
          else finish(true)
        },
        onResponseError(_controller, err) {
          finish(false, err.message)
        },
      },
    )
  })
}
