// Small clients for end-to-end tests: JSON requests and a reader for the gateway's SSE events.
import { request } from 'undici'

export interface JsonAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: any
  readonly trailers: Record<string, string>
}

export interface CallOptions {
  readonly method?: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'
  readonly key?: string
  readonly body?: unknown
  /** Sent as is, instead of JSON-encoding `body`. */
  readonly raw?: string | Buffer
  readonly headers?: Record<string, string>
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  return out
}

export async function call(url: string, options: CallOptions = {}): Promise<JsonAnswer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers['x-api-key'] = options.key
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  if (payload !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json'
  const res = await request(url, {
    method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
    headers,
    ...(payload === undefined ? {} : { body: payload }),
  })
  const text = await res.body.text()
  let body: unknown = text
  if ((res.headers['content-type'] ?? '').toString().startsWith('application/json')) body = JSON.parse(text)
  return { status: res.statusCode, headers: flatten(res.headers), body, trailers: flatten(res.trailers) }
}

export interface SseEvent {
  readonly event: string
  readonly data: any
}

/** Parses a complete text/event-stream body into its events; a block without data (a comment) is none. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = []
  for (const block of text.split('\n\n')) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7)
      else if (line.startsWith('data: ')) data.push(line.slice(6))
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) })
  }
  return events
}

export const hello = { messages: [{ role: 'user', content: 'Say hello to the gateway tests' }] }
