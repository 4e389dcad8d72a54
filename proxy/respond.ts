// Writing answers: JSON bodies, text, bytes, errors in the spec's shape, and the headers a plugin collected.
import type { ServerResponse } from 'node:http'
import type { ErrorShape } from './error-shape.ts'
import type { GatewayError } from './errors.ts'

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

/** `shape`: a client dialect's way of writing errors; absent, the spec's body. */
export function sendError(res: ServerResponse, error: GatewayError, headers: Record<string, string> = {}, shape?: ErrorShape): void {
  if (shape === undefined) sendJson(res, error.status, error.toBody(), { ...headers, ...error.headers() })
  else sendJson(res, error.status, shape.body(error), { ...headers, ...error.headers(), ...shape.headers(error) })
}
