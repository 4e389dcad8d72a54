// Child entry: the floor for cache hits. Reads each request's body, then answers with the same
// recorded gateway answer (status, headers and JSON bytes) every time.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Exchange } from '../probe.ts'
import { runChild, specOf } from './lifecycle.ts'

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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    info: { url: `http://127.0.0.1:${port}` },
    async stop() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
})
