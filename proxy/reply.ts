// What a plugin or a route handler answers with. The server renders each kind once.
import type { CompletionResult } from './completion.ts'
import type { GatewayError } from './errors.ts'

export type Reply =
  | { readonly kind: 'json'; readonly status: number; readonly body: unknown; readonly headers?: Record<string, string> }
  | { readonly kind: 'error'; readonly error: GatewayError }
  /** A complete model answer known without an upstream call (a cache hit): JSON on complete, SSE on chat. */
  | { readonly kind: 'completion'; readonly result: CompletionResult }
  | { readonly kind: 'text'; readonly status: number; readonly body: string; readonly contentType: string }
  /** Bytes as they are (a static file, perhaps compressed); `headers` name their content-type. */
  | { readonly kind: 'bytes'; readonly status: number; readonly body: Uint8Array; readonly headers: Record<string, string> }

export const Reply = {
  json(body: unknown, status = 200, headers?: Record<string, string>): Reply {
    return headers === undefined ? { kind: 'json', status, body } : { kind: 'json', status, body, headers }
  },
  error(error: GatewayError): Reply {
    return { kind: 'error', error }
  },
  completion(result: CompletionResult): Reply {
    return { kind: 'completion', result }
  },
  text(body: string, contentType = 'text/plain; charset=utf-8', status = 200): Reply {
    return { kind: 'text', status, body, contentType }
  },
  bytes(body: Uint8Array, headers: Record<string, string>, status = 200): Reply {
    return { kind: 'bytes', status, body, headers }
  },
}
