// The node:http server of the baselines: GET /health answers at once, and every other request is
// handed over with its body read whole into one Buffer (a gateway must read a body to parse it,
// and one Buffer lets undici send head and body in one write); null for no body.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

export function bodyServer(answer: (req: IncomingMessage, res: ServerResponse, body: Buffer | null) => void): Server {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{"ok":true}')
      return
    }
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => answer(req, res, parts.length === 0 ? null : parts.length === 1 ? parts[0]! : Buffer.concat(parts)))
  })
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  return server
}
