// Upstream HTTP for the provider adapters: one keep-alive undici Pool per origin, and the one
// place where undici's failures become gateway errors. No provider wire format lives here.
//
// Requests go through the pool's `dispatch` with a handler that collects the body's bytes itself:
// no Readable, no AsyncResource and no per-chunk stream machinery between the socket and the
// adapter, which reads either the whole text or each piece as it comes.
import { StringDecoder } from 'node:string_decoder'
import { Pool, errors } from 'undici'
import type { Dispatcher } from 'undici'
import { UpstreamError, UpstreamTimeoutError } from './errors.ts'

interface UpstreamOptions {
  /** Sockets per origin. */
  readonly connections: number
  readonly connectTimeoutMs: number
  /** From the request being sent to the response headers. */
  readonly firstByteTimeoutMs: number
  /** Between two chunks of a response body. */
  readonly idleTimeoutMs: number
}

/** Where requests go; built once per endpoint and reused for every request. */
export interface UpstreamTarget {
  /** Who is called, as error messages name it (e.g. 'openai'). */
  readonly label: string
  readonly origin: string
  readonly path: string
  readonly headers: Record<string, string>
}

export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>

/** A response whose body must be read to the end, or dumped. */
export interface UpstreamResponse {
  readonly status: number
  /** The response's headers, names in lower case (an error's retry-after is read from them). */
  readonly headers: ResponseHeaders
  /**
   * The body as UTF-8 text, each piece as it arrives: all that came since the last call, or the
   * next piece to come; undefined at the end. Read one piece at a time.
   */
  nextText(): Promise<string | undefined>
  /** Stops reading early: closes the request's socket. */
  stop(): void
  text(): Promise<string>
  /** Discards the rest of the body so the socket can go back to the pool. */
  dump(): Promise<void>
}

export interface Upstream {
  /**
   * Rejects with UpstreamError, UpstreamTimeoutError, or the signal's reason after an abort.
   * `extraHeaders` (this request's trace context) go beside the target's own.
   */
  post(target: UpstreamTarget, body: string, signal: AbortSignal, extraHeaders?: Readonly<Record<string, string>>): Promise<UpstreamResponse>
  close(): Promise<void>
}

// Failures of the connection itself: the same request may well succeed on a fresh socket.
const CONNECTION_ERROR_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'])

/** Bytes held unread before the socket is paused: a reader slower than the provider holds it back. */
const HIGH_WATER_BYTES = 64 * 1024

/** Maps a failure of an undici call to the error the gateway throws. */
function toUpstreamFailure(err: unknown, label: string, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason
  if (err instanceof errors.ConnectTimeoutError) {
    return new UpstreamTimeoutError(`${label} did not accept a connection in time.`, { cause: err })
  }
  if (err instanceof errors.HeadersTimeoutError) {
    return new UpstreamTimeoutError(`${label} did not start answering in time.`, { cause: err })
  }
  if (err instanceof errors.BodyTimeoutError) {
    return new UpstreamTimeoutError(`${label} went silent in the middle of its answer.`, { cause: err })
  }
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) {
    return new UpstreamError(`The connection to ${label} failed (${code}).`, true, { cause: err })
  }
  return new UpstreamError(`The request to ${label} failed.`, false, { cause: err })
}

/** Settles the post's promise at the response's head, then hands its body to one reader. */
class Exchange implements Dispatcher.DispatchHandler, UpstreamResponse {
  status = 0
  headers: ResponseHeaders = {}
  readonly #label: string
  readonly #signal: AbortSignal
  #controller: Dispatcher.DispatchController | undefined
  #started: ((response: UpstreamResponse) => void) | undefined
  #failed: ((err: unknown) => void) | undefined
  /**
   * Bytes arrived and not yet read: a chunk on its own, or all of them in an array made once a
   * second one comes. A read mostly finds one chunk, and an array per read would be garbage at
   * once.
   */
  #pendingFirst: Buffer | undefined
  #pendingMore: Buffer[] | undefined
  #pendingBytes = 0
  #ended = false
  #error: unknown
  #discarding = false
  /** The reader waiting for bytes, the end or a failure. */
  #wake: (() => void) | undefined
  #decoder: StringDecoder | undefined
  readonly #onAbort = () => this.#controller?.abort(this.#signal.reason as Error)

  constructor(label: string, signal: AbortSignal, started: (response: UpstreamResponse) => void, failed: (err: unknown) => void) {
    this.#label = label
    this.#signal = signal
    this.#started = started
    this.#failed = failed
    signal.addEventListener('abort', this.#onAbort)
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
    if (this.#signal.aborted) controller.abort(this.#signal.reason as Error)
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders): void {
    // An informational answer (100 Continue) comes before the real one.
    if (statusCode < 200) return
    this.status = statusCode
    this.headers = headers
    const started = this.#started
    this.#started = this.#failed = undefined
    started?.(this)
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#discarding) return
    if (this.#pendingFirst === undefined) this.#pendingFirst = chunk
    else if (this.#pendingMore === undefined) this.#pendingMore = [this.#pendingFirst, chunk]
    else this.#pendingMore.push(chunk)
    this.#pendingBytes += chunk.length
    if (this.#pendingBytes > HIGH_WATER_BYTES && this.#wake === undefined && this.#decoder !== undefined) controller.pause()
    this.#wakeReader()
  }

  onResponseEnd(): void {
    this.#ended = true
    this.#signal.removeEventListener('abort', this.#onAbort)
    this.#wakeReader()
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.#signal.removeEventListener('abort', this.#onAbort)
    const failure = toUpstreamFailure(err, this.#label, this.#signal)
    const failed = this.#failed
    if (failed !== undefined) {
      this.#started = this.#failed = undefined
      failed(failure)
      return
    }
    this.#error = failure
    this.#wakeReader()
  }

  #wakeReader(): void {
    const wake = this.#wake
    if (wake === undefined) return
    this.#wake = undefined
    wake()
  }

  #arrival(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve
    })
  }

  #take(): Buffer {
    const more = this.#pendingMore
    const bytes = more === undefined ? this.#pendingFirst! : Buffer.concat(more, this.#pendingBytes)
    this.#pendingFirst = this.#pendingMore = undefined
    this.#pendingBytes = 0
    return bytes
  }

  async nextText(): Promise<string | undefined> {
    const decoder = (this.#decoder ??= new StringDecoder('utf8'))
    for (;;) {
      if (this.#pendingBytes > 0) {
        const text = decoder.write(this.#take())
        if (this.#controller?.paused === true) this.#controller.resume()
        if (text !== '') return text
        continue
      }
      if (this.#error !== undefined) throw this.#error
      if (this.#ended) {
        const rest = decoder.end()
        return rest === '' ? undefined : rest
      }
      await this.#arrival()
    }
  }

  stop(): void {
    if (this.#ended || this.#error !== undefined) return
    this.#signal.removeEventListener('abort', this.#onAbort)
    this.#controller?.abort(new Error('the body was not read to its end'))
  }

  async text(): Promise<string> {
    while (!this.#ended) {
      if (this.#error !== undefined) throw this.#error
      await this.#arrival()
    }
    return this.#pendingBytes === 0 ? '' : this.#take().toString('utf8')
  }

  async dump(): Promise<void> {
    this.#discarding = true
    this.#pendingFirst = this.#pendingMore = undefined
    this.#pendingBytes = 0
    // Best effort: a body that fails while being discarded has already freed its socket.
    while (!this.#ended && this.#error === undefined) await this.#arrival()
  }
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const pools = new Map<string, Pool>()
  const poolFor = (origin: string): Pool => {
    let pool = pools.get(origin)
    if (pool === undefined) {
      pool = new Pool(origin, {
        connections: options.connections,
        connectTimeout: options.connectTimeoutMs,
        headersTimeout: options.firstByteTimeoutMs,
        bodyTimeout: options.idleTimeoutMs,
      })
      pools.set(origin, pool)
    }
    return pool
  }
  return {
    post(target, body, signal, extraHeaders) {
      if (signal.aborted) return Promise.reject(signal.reason)
      return new Promise((resolve, reject) => {
        // A failure to dispatch at all (a closed pool) arrives at the handler's onResponseError too.
        poolFor(target.origin).dispatch(
          {
            method: 'POST',
            path: target.path,
            headers: extraHeaders === undefined ? target.headers : { ...target.headers, ...extraHeaders },
            body,
          },
          new Exchange(target.label, signal, resolve, reject),
        )
      })
    },
    /** Lets requests in flight finish; later posts fail as non-retryable UpstreamErrors. */
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()))
    },
  }
}
