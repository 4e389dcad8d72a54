import type { AddressInfo } from 'node:net'
import t from 'tap'
import { buildChain } from '../../../proxy/pipeline/chain.ts'
import { loadConfig } from '../../../proxy/config.ts'
import { createLogger } from '../../../proxy/log.ts'
import { createMetrics } from '../../../proxy/metrics.ts'
import type { RouteTable } from '../../../proxy/http/routes.ts'
import { createHandler, createHttpServer } from '../../../proxy/http/server.ts'

t.test('a failure that escapes the request handler ends that request, not the process', async (t) => {
  const { core } = loadConfig([], {})
  const metrics = createMetrics()
  let calls = 0
  const routes: RouteTable = {
    all: [],
    find() {
      if (++calls === 1) throw new Error('route table broke')
      return undefined
    },
  }
  const handler = createHandler({
    config: core,
    routes,
    chain: buildChain([], metrics),
    metrics,
    log: createLogger('silent'),
    clock: { now: () => Date.now() },
  })
  const server = createHttpServer(core, handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/anything`

  await t.rejects(fetch(url), 'the failed request is cut off')
  const next = await fetch(url)
  t.equal(next.status, 404, 'the server still answers the next one')
  t.equal(handler.inFlight(), 0)
})
