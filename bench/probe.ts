// Single requests outside the load runs: the probes that check a scenario measures what its name
// says, the usage figures that show what the gateway metered, and the recording of a gateway
// answer for the static floor.
import { request } from 'undici'

export interface LoadRequest {
  readonly url: string
  readonly method: 'GET' | 'POST'
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}

export interface Exchange {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Hop-by-hop and per-moment headers that a replayed answer must not copy. */
const UNREPLAYABLE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date'])

export async function send(load: LoadRequest): Promise<Exchange> {
  const answer = await request(load.url, {
    method: load.method,
    headers: load.headers,
    ...(load.body === undefined ? {} : { body: load.body }),
  })
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return { status: answer.statusCode, headers, body: await answer.body.text() }
}

/** An answer as a server would send it again, byte for byte apart from the Date header. */
export function replayable(exchange: Exchange): Exchange {
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(exchange.headers)) {
    if (!UNREPLAYABLE.has(name)) headers[name] = value
  }
  return { ...exchange, headers }
}
