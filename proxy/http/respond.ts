// Writing answers: JSON bodies, text, bytes, errors in the spec's shape (or a dialect's) with the
// SDKs' retry hints, and the headers a plugin collected.
import type { ServerResponse } from 'node:http'
import type { ErrorShape } from './error-shape.ts'
import type { GatewayError } from '../pipeline/errors.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

// Each send takes `headers` as its own (every caller builds them for this answer) and adds the
// content headers to it: a copy per answer would only be thrown away. A name already there keeps
// its place and takes the new value, as in a spread.
type AnswerHeaders = Record<string, string | number>

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return
  const payload = JSON.stringify(body)
  const all: AnswerHeaders = headers
  all['content-type'] = JSON_TYPE
  all['content-length'] = Buffer.byteLength(payload)
  res.writeHead(status, all)
  res.end(payload)
}

export function sendText(res: ServerResponse, status: number, body: string, contentType: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return
  const all: AnswerHeaders = headers
  all['content-type'] = contentType
  all['content-length'] = Buffer.byteLength(body)
  res.writeHead(status, all)
  res.end(body)
}

export function sendBytes(res: ServerResponse, status: number, body: Uint8Array, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return
  const all: AnswerHeaders = headers
  all['content-length'] = body.byteLength
  res.writeHead(status, all)
  res.end(body)
}

/**
 * The hints the official SDKs read before their own status rules: `x-should-retry` on every error,
 * and `retry-after-ms` beside a `retry-after` in seconds.
 */
function retryHints(error: GatewayError, own: Readonly<Record<string, string>>): Record<string, string> {
  const hints: Record<string, string> = { 'x-should-retry': String(error.clientMayRetry()) }
  const seconds = Number(own['retry-after'])
  if (own['retry-after-ms'] === undefined && Number.isFinite(seconds)) hints['retry-after-ms'] = String(seconds * 1000)
  return hints
}

/** `shape`: a client dialect's way of writing errors; absent, the spec's body. */
export function sendError(res: ServerResponse, error: GatewayError, headers: Record<string, string> = {}, shape?: ErrorShape): void {
  const own = error.headers()
  sendJson(res, error.status, shape === undefined ? error.toBody() : shape.body(error), { ...headers, ...own, ...retryHints(error, own) })
}
