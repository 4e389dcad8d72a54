// Child entry: a no-op OpenTelemetry collector. It takes OTLP/HTTP trace exports (POST /v1/traces),
// reads and drops them, and counts them (GET /stats), so the traced gateway's row pays for making
// and sending spans and nothing else.
import { createServer } from 'node:http'
import { listenLoopback, runChild } from './lifecycle.ts'

export interface OtlpSinkStats {
  /** Export requests received. */
  readonly exports: number
}

await runChild(async () => {
  let exports = 0
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports } satisfies OtlpSinkStats))
      return
    }
    req.resume()
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') exports++
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  return listenLoopback(server)
})
