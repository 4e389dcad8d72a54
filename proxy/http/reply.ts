// What a plugin or a route handler answers with. render.ts writes the kinds known whole; the
// server hands a completion to the model call's delivery and an exchange to its handler.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { CompletionResult } from '../pipeline/completion.ts'
import type { Outcome } from '../pipeline/context.ts'
import type { GatewayError } from '../pipeline/errors.ts'

/** What a handler that writes its own answer is given: the request, its body unread, and the response. */
export interface Exchange {
  readonly req: IncomingMessage
  readonly res: ServerResponse
  /** The request's body as it arrives; it fails with PayloadTooLargeError past the body limit. */
  readonly body: Readable
}

/** How an exchange ended, for the metrics and the access log. */
export interface ExchangeEnd {
  readonly status: number
  readonly reason: Outcome
}

export type Reply =
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown; readonly headers?: Record<string, string> }
  | { readonly kind: 'error'; readonly error: GatewayError }
  /** A complete model answer known without an upstream call (a cache hit): JSON on complete, SSE on chat. */
  | { readonly kind: 'completion'; readonly result: CompletionResult }
  | { readonly kind: 'text'; readonly status: number; readonly body: string; readonly contentType: string }
  /** Bytes as they are (a static file, perhaps compressed); `headers` name their content-type. */
  | { readonly kind: 'bytes'; readonly status: number; readonly body: Uint8Array; readonly headers: Record<string, string> }
  /**
   * The handler writes the answer itself, streaming (a pass-through to a provider): the server hands
   * it the exchange and waits until it ends. ctx.responseHeaders are on the response already.
   * Only on a route with `rawBody`, whose body the server left unread.
   */
  | { readonly kind: 'exchange'; readonly run: (exchange: Exchange) => Promise<ExchangeEnd> }

/** A reply written whole at once: what a hook may send in the place of a model's answer. */
export type WholeReply = Exclude<Reply, { readonly kind: 'completion' } | { readonly kind: 'exchange' }>

type ReplyOf<K extends Reply['kind']> = Extract<Reply, { readonly kind: K }>

export const Reply = {
  json(body: unknown, status = 200, headers?: Record<string, string>): ReplyOf<'json'> {
    return headers === undefined ? { kind: 'json', status, body } : { kind: 'json', status, body, headers }
  },
  error(error: GatewayError): ReplyOf<'error'> {
    return { kind: 'error', error }
  },
  completion(result: CompletionResult): ReplyOf<'completion'> {
    return { kind: 'completion', result }
  },
  text(body: string, contentType = 'text/plain; charset=utf-8', status = 200): ReplyOf<'text'> {
    return { kind: 'text', status, body, contentType }
  },
  bytes(body: Uint8Array, headers: Record<string, string>, status = 200): ReplyOf<'bytes'> {
    return { kind: 'bytes', status, body, headers }
  },
  exchange(run: (exchange: Exchange) => Promise<ExchangeEnd>): ReplyOf<'exchange'> {
    return { kind: 'exchange', run }
  },
}
