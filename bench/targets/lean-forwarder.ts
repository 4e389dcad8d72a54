// Child entry: the lean forwarder, the baseline every proxy row is divided by. The least a Node
// proxy can do: node:http in, one keep-alive undici Pool out, the request body read once into one
// Buffer (a gateway must read it to parse it, and one Buffer lets undici send head and body in
// one write), hop-by-hop headers stripped both ways, nothing parsed, and the upstream's answer,
// JSON or SSE, written into the client's response chunk by chunk from a `dispatch` handler, the
// upstream paused while the client is not reading. Whatever a gateway spends above this is its
// own work.
//
// `dispatch` and not `Pool.stream`: the stream API's Writable plumbing cost 3 µs more CPU per json
// answer and 9 µs more per streamed one (paired A/B, 6 rounds each, pinned), and a baseline must
// be the leanest of its kind or every ratio divided by it flatters the gateway.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import { Pool, type Dispatcher } from 'undici'
import { bodyServer } from './body-server.ts'
import { listenLoopback, runChild, specOf } from './lifecycle.ts'

export interface LeanForwarderSpec {
  readonly upstreamUrl: string
  /** Sockets to the upstream: the gateway's own provider pool size in the same lane. */
  readonly connections: number
}

// RFC 9110 §7.6.1, plus host, which undici sets from the origin.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
])

function endToEnd(headers: IncomingHttpHeaders | Readonly<Record<string, string | string[] | undefined>>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value
  }
  return kept
}

const BAD_GATEWAY = JSON.stringify({ error: { message: 'lean forwarder: the upstream failed' } })

/** Writes the upstream's answer into the client's response as it arrives. */
class Relay implements Dispatcher.DispatchHandler {
  readonly #res: ServerResponse

  constructor(res: ServerResponse) {
    this.#res = res
  }

  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Readonly<Record<string, string | string[] | undefined>>): void {
    this.#res.writeHead(statusCode, endToEnd(headers))
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#res.write(chunk)) return
    controller.pause()
    this.#res.once('drain', () => controller.resume())
  }

  onResponseEnd(): void {
    this.#res.end()
  }

  onResponseError(): void {
    const res = this.#res
    if (res.headersSent) {
      res.destroy()
      return
    }
    res.writeHead(502, { 'content-type': 'application/json' })
    res.end(BAD_GATEWAY)
  }
}

await runChild(async () => {
  const spec = specOf<LeanForwarderSpec>()
  const pool = new Pool(spec.upstreamUrl, { connections: spec.connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 600_000 })

  const server = bodyServer((req, res, body) => {
    pool.dispatch({ path: req.url ?? '/', method: req.method as 'POST', headers: endToEnd(req.headers), body }, new Relay(res))
  })
  return listenLoopback(server, () => pool.destroy())
})
