// Server-Sent Events as the README documents them: `delta` events with text, one `done` event with
// the usage and credits, or an `error` event when the stream fails or is stopped after it began.
import type { ServerResponse } from 'node:http'
import { once } from 'node:events'
import type { ErrorBody } from './errors.ts'

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

  /** Writes one event; waits for the socket to drain when the client reads slower than we write. */
  async event(name: string, data: unknown): Promise<void> {
    if (this.#res.destroyed) return
    if (!this.#res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)) {
      await once(this.#res, 'drain', { signal: this.#signal })
    }
  }

  /**
   * Ends the stream with an `error` event carrying the error's JSON body. Written without waiting
   * for the client to read: the stream is over either way, and the socket stays open until the
   * event is sent.
   */
  fail(data: ErrorBody): void {
    if (this.#res.destroyed) return
    this.#res.end(`event: error\ndata: ${JSON.stringify(data)}\n\n`)
  }

  close(trailers: Record<string, string> = {}): void {
    if (this.#res.destroyed) return
    if (Object.keys(trailers).length > 0) this.#res.addTrailers(trailers)
    this.#res.end()
  }
}
