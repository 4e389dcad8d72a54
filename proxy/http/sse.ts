// Server-Sent Events out to the client: the status line and headers, frames written with
// backpressure, keep-alive comments while nothing else goes out, and trailers at the end. What
// the frames say is the answer format's business.
//
// Frames written in one turn of the event loop go to the socket together, once the turn's
// promise callbacks have run: a provider answer that arrives in one read then leaves in one
// write (the head, every frame, the end and the trailers), where a write per batch and another
// for the end cost a system call and Node's write machinery each. Once the provider's answer has
// ended, its last frames wait for the end, which usually follows within the same turn of the event
// loop once the charge is journaled, so that they leave in the end's write rather than one of their own.
import type { ServerResponse } from 'node:http'
import { once } from 'node:events'

/** A comment line: every SSE client skips it, and it keeps proxies' read timeouts from firing. */
export const KEEP_ALIVE_FRAME = ': keep-alive\n\n'

export interface SseHead {
  readonly headers: Record<string, string>
  /** Headers that will follow the body. */
  readonly trailers: readonly string[]
}

/** One SSE frame: an optional event name, then the data as JSON. */
export function sseFrame(data: unknown, event?: string): string {
  return event === undefined ? `data: ${JSON.stringify(data)}\n\n` : `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

export class SseWriter {
  readonly #res: ServerResponse
  readonly #signal: AbortSignal
  #keepAlive: NodeJS.Timeout | undefined
  /** Frames written in this turn and not yet handed to the socket. */
  #unsent = ''
  #flushQueued = false
  /** The provider's answer is over: only the end's frames are still to come. */
  #ending = false
  /** Frames held for the end were given one more turn already. */
  #waitedForEnd = false
  readonly #flush = () => {
    this.#flushQueued = false
    if (this.#ending && !this.#waitedForEnd) {
      // The end waits for its charge's journal write, queued for this turn's check phase: an
      // immediate queued now runs after it, when the end has usually taken these frames with it.
      // The end's hooks may take longer (a scan in the worker pool): then the frames go now.
      this.#waitedForEnd = true
      this.#flushQueued = true
      setImmediate(this.#flush)
      return
    }
    const frames = this.#unsent
    this.#unsent = ''
    if (frames !== '' && !this.#res.destroyed && !this.#res.writableEnded) this.#res.write(frames)
  }

  /** `signal` aborts a wait for drain when the client goes away. */
  constructor(res: ServerResponse, signal: AbortSignal) {
    this.#res = res
    this.#signal = signal
  }

  /** The status line and headers are sent. */
  get opened(): boolean {
    return this.#res.headersSent
  }

  /** Sets the status line and headers; they go out with the first frames, in the same write. */
  open({ headers, trailers }: SseHead): void {
    const head: Record<string, string> = {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    }
    if (trailers.length > 0) head.trailer = trailers.join(', ')
    this.#res.writeHead(200, head)
  }

  /**
   * From now until the stream ends, whenever `ms` pass with nothing written, writes a comment
   * line, opening the stream with `head()` first if it is not open yet: a model that thinks
   * before its first token, or text held back, would otherwise leave the connection silent long
   * enough for a proxy's read timeout to cut it.
   */
  keepAlive(ms: number, head: () => SseHead): void {
    this.#keepAlive = setTimeout(() => {
      if (this.#res.destroyed || this.#res.writableEnded) return
      if (!this.opened) this.open(head())
      // A client that has not read what it was sent is not idle: nothing more is queued for it.
      if (!this.#res.writableNeedDrain) this.#res.write(KEEP_ALIVE_FRAME)
      this.#keepAlive?.refresh()
    }, ms)
    // The response holds the process open while it lasts; this timer must not outlive it.
    this.#keepAlive.unref()
  }

  /** Stops the keep-alive comments: the answer goes out some other way (an error before the stream opened). */
  stopKeepAlive(): void {
    clearTimeout(this.#keepAlive)
  }

  /**
   * Queues frames (nothing for '') for this turn's one write to the socket. A promise only when
   * the client reads slower than we write: it resolves once the socket has drained. The frames
   * of the turn that filled it go out meanwhile, so at most one more batch waits in memory.
   */
  write(frames: string): Promise<unknown> | undefined {
    if (frames === '' || this.#res.destroyed) return undefined
    this.#keepAlive?.refresh()
    this.#unsent += frames
    if (!this.#flushQueued) {
      this.#flushQueued = true
      // A tick queued from a promise callback runs once every callback queued behind it has run.
      process.nextTick(this.#flush)
    }
    return this.#res.writableNeedDrain ? once(this.#res, 'drain', { signal: this.#signal }) : undefined
  }

  /** The provider's answer has ended: frames not yet sent may wait a turn for the end's frames, to leave with them. */
  ending(): void {
    this.#ending = true
  }

  /**
   * Ends the stream with its last frames (the format's error event). Written without waiting for
   * the client to read: the stream is over either way, and the socket stays open until they are sent.
   */
  end(frames: string): void {
    this.stopKeepAlive()
    if (this.#res.destroyed) return
    this.#res.end(this.#takeUnsent() + frames)
  }

  /** Ends the stream with its last frames, and the trailers when there are any. */
  close(frames: string, trailers?: Record<string, string>): void {
    this.stopKeepAlive()
    if (this.#res.destroyed) return
    if (trailers !== undefined) this.#res.addTrailers(trailers)
    this.#res.end(this.#takeUnsent() + frames)
  }

  #takeUnsent(): string {
    const frames = this.#unsent
    this.#unsent = ''
    return frames
  }
}
