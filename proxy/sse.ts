// Server-Sent Events out to the client: the status line and headers, frames written with
// backpressure, and trailers at the end. What the frames say is the answer format's business.
import type { ServerResponse } from 'node:http'
import { once } from 'node:events'

/** One SSE frame: an optional event name, then the data as JSON. */
export function sseFrame(data: unknown, event?: string): string {
  return event === undefined ? `data: ${JSON.stringify(data)}\n\n` : `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

export class SseWriter {
  readonly #res: ServerResponse
  readonly #signal: AbortSignal

  /** `signal` aborts a wait for drain when the client goes away. */
  constructor(res: ServerResponse, signal: AbortSignal) {
    this.#res = res
    this.#signal = signal
  }

  /** Sends the status line and headers; `trailers` names headers that will follow the body. */
  open(headers: Record<string, string>, trailers: readonly string[]): void {
    const head: Record<string, string> = {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    }
    if (trailers.length > 0) head.trailer = trailers.join(', ')
    this.#res.writeHead(200, head)
    this.#res.flushHeaders()
  }

  /** Writes frames (nothing for ''); waits for the socket to drain when the client reads slower than we write. */
  async write(frames: string): Promise<void> {
    if (frames === '' || this.#res.destroyed) return
    if (!this.#res.write(frames)) {
      await once(this.#res, 'drain', { signal: this.#signal })
    }
  }

  /**
   * Ends the stream with its last frames (the format's error event). Written without waiting for
   * the client to read: the stream is over either way, and the socket stays open until they are sent.
   */
  end(frames: string): void {
    if (this.#res.destroyed) return
    this.#res.end(frames)
  }

  close(trailers: Record<string, string> = {}): void {
    if (this.#res.destroyed) return
    if (Object.keys(trailers).length > 0) this.#res.addTrailers(trailers)
    this.#res.end()
  }
}
