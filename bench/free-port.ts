// A loopback port nobody listens on, for a server that must be told its port (PostgreSQL, Redis); the bench and the tests start such servers.
import { createServer } from 'node:net'
import { once } from 'node:events'

export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}
