// Child entry: the floor for cache hits. Reads each request's body, then answers with the same
// recorded gateway answer (status, headers and JSON bytes) every time.
import { createServer } from 'node:http'
import type { Exchange } from '../probe.ts'
import { listenLoopback, runChild, specOf } from './lifecycle.ts'

await runChild(async () => {
  const recorded = specOf<Exchange>()
  const body = Buffer.from(recorded.body, 'utf8')
  const headers = { ...recorded.headers, 'content-length': String(body.length) }
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(recorded.status, headers)
      res.end(body)
    })
  })
  return listenLoopback(server)
})
