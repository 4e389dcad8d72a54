// Writing answers: JSON bodies, text, bytes, errors in the spec's shape (or a dialect's) with the
// SDKs' retry hints, and the headers a plugin collected.
import type { ServerResponse } from 'node:http'
import type { ErrorShape } from './error-shape.ts'
import type { GatewayError } from '../pipeline/errors.ts'

const JSON_TYPE = 'application/json; charset=utf-8'

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return
  const payload = JSON.stringify(body)
  res.writeHead(status, { ...headers, 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(payload) })
  res.end(payload)
}

export function sendText(res: ServerResponse, status: number, body: string, contentType: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

export function sendBytes(res: ServerResponse, status: number, body: Uint8Array, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { ...headers, 'content-length': body.byteLength })
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
