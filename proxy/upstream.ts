// Upstream HTTP for the provider adapters: one keep-alive undici Pool per origin, and the one
// place where undici's failures become gateway errors. No provider wire format lives here.
import { Pool, errors } from 'undici'
import type { Dispatcher } from 'undici'
import { UpstreamError, UpstreamTimeoutError } from './errors.ts'

export interface UpstreamOptions {
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

/** A response whose body must be read to the end, or dumped. */
export interface UpstreamResponse {
  readonly status: number
  /** The body as UTF-8 text, piece by piece as it arrives. Stopping early closes the socket. */
  chunks(): AsyncGenerator<string, void, undefined>
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
const CONNECTION_ERROR_CODES = new Set([
  'UND_ERR_SOCKET', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
])

/** Maps a failure of an undici call to the error the gateway throws. */
export function toUpstreamFailure(err: unknown, label: string, signal: AbortSignal): unknown {
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

class UndiciResponse implements UpstreamResponse {
  readonly status: number
  readonly #body: Dispatcher.ResponseData['body']
  readonly #label: string
  readonly #signal: AbortSignal

  constructor(data: Dispatcher.ResponseData, label: string, signal: AbortSignal) {
    this.status = data.statusCode
    this.#body = data.body
    this.#label = label
    this.#signal = signal
  }

  async *chunks(): AsyncGenerator<string, void, undefined> {
    this.#body.setEncoding('utf8')
    try {
      for await (const chunk of this.#body) yield chunk as string
    } catch (err) {
      throw toUpstreamFailure(err, this.#label, this.#signal)
    }
  }

  async text(): Promise<string> {
    try {
      return await this.#body.text()
    } catch (err) {
      throw toUpstreamFailure(err, this.#label, this.#signal)
    }
  }

  async dump(): Promise<void> {
    try {
      await this.#body.dump()
    } catch {
      // Best effort: a body that fails while being discarded has already freed its socket.
    }
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
    async post(target, body, signal, extraHeaders) {
      try {
        const data = await poolFor(target.origin).request({
          method: 'POST',
          path: target.path,
          headers: extraHeaders === undefined ? target.headers : { ...target.headers, ...extraHeaders },
          body,
          signal,
        })
        return new UndiciResponse(data, target.label, signal)
      } catch (err) {
        throw toUpstreamFailure(err, target.label, signal)
      }
    },
    /** Lets requests in flight finish; later posts fail as non-retryable UpstreamErrors. */
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()))
    },
  }
}
