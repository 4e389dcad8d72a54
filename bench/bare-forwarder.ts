// The floor of a Node proxy's cost: a node:http server and one keep-alive undici Pool that forwards
// each POST body to the upstream's /v1/chat/completions and pipes the answer back. No parsing, no
// validation, no bookkeeping: whatever the gateway costs above this is its own work.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pipeline } from 'node:stream/promises'
import { Pool } from 'undici'

const UPSTREAM_PATH = '/v1/chat/completions'

export interface BareForwarderOptions {
  readonly upstreamUrl: string
  /** Sockets to the upstream: the same as the gateway's provider pool. */
  readonly connections: number
  readonly connectTimeoutMs: number
  readonly headersTimeoutMs: number
  readonly bodyTimeoutMs: number
}

export interface BareForwarder {
  readonly url: string
  close(): Promise<void>
}

export async function startBareForwarder(options: BareForwarderOptions): Promise<BareForwarder> {
  const pool = new Pool(options.upstreamUrl, {
    connections: options.connections,
    connectTimeout: options.connectTimeoutMs,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
  })

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    const answer = await pool.request({
      method: 'POST',
      path: UPSTREAM_PATH,
      headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' },
      body: Buffer.concat(parts),
    })
    const headers: Record<string, string | string[]> = {}
    for (const name of ['content-type', 'content-length']) {
      const value = answer.headers[name]
      if (value !== undefined) headers[name] = value
    }
    res.writeHead(answer.statusCode, headers)
    await pipeline(answer.body, res)
  }

  const server = createServer((req, res) => {
    forward(req, res).catch(() => {
      if (res.headersSent) res.destroy()
      else res.writeHead(502).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await pool.close()
    },
  }
}
